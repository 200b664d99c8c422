import Foundation
import Pages

extension TrafficReport {
    /// Writes `arrivals.csv`, `priorities.csv`, `refusals.csv`, `irregular.csv`,
    /// `token_cadence.csv`, `report.html`, with the doctor's findings `practices.json`, and, when
    /// the mock answered broadcasts, `broadcasts.csv` into `directory`, creating it.
    /// - Returns: the HTML report's path.
    /// - Throws: `ReportError` naming the file and the system's reason; files already written stay.
    public func write(to directory: String) throws -> String {
        try ReportFile.makeFolder(directory)
        var files = [
            ("arrivals.csv", arrivalsTable.text), ("priorities.csv", prioritiesTable.text),
            ("refusals.csv", refusalsTable.text), ("irregular.csv", irregularTable.text),
            ("token_cadence.csv", cadenceTable.text), ("report.html", html()),
        ]
        if let broadcasts {
            var table = CSVTable(columns: [
                "broadcasts", "broadcasts_accepted", "deliveries", "last_delivery_mean_ms", "last_delivery_max_ms",
            ])
            table.append([
                String(broadcasts.answered), String(broadcasts.accepted), String(broadcasts.deliveries),
                String(format: "%.3f", broadcasts.meanLastDeliveryMs),
                String(format: "%.3f", Double(broadcasts.lastDeliveryMicrosMax) / 1000),
            ])
            files.append(("broadcasts.csv", table.text))
        }
        var documents = files.map { ($0.0, Data($0.1.utf8)) }
        if let practices { documents.append(("practices.json", practices.json())) }
        for (name, data) in documents {
            try ReportFile.save(data, toPath: (directory as NSString).appendingPathComponent(name))
        }
        return (directory as NSString).appendingPathComponent("report.html")
    }

    /// Pushes per second since the first arrival.
    public var arrivalsTable: CSVTable {
        var table = CSVTable(columns: [
            "second_s", "pushes_per_s", "accepted_per_s", "refused_per_s", "priority_10_per_s", "priority_5_per_s",
            "priority_1_per_s",
        ])
        for (second, counts) in seconds.enumerated() {
            table.append(
                [
                    second, counts.pushes, counts.accepted, counts.refused, counts.priority10, counts.priority5,
                    counts.priority1,
                ].map(String.init)
            )
        }
        return table
    }

    /// Pushes by push type and priority.
    public var prioritiesTable: CSVTable {
        var table = CSVTable(columns: ["apns_push_type", "apns_priority", "pushes", "share_percent"])
        for mix in priorityMix {
            table.append([mix.pushType, String(mix.priority), String(mix.pushes), percent(mix.pushes)])
        }
        return table
    }

    /// Refusals by status and reason.
    public var refusalsTable: CSVTable {
        var table = CSVTable(columns: ["status", "reason", "pushes", "share_percent"])
        for refusal in refusals {
            table.append([String(refusal.status), refusal.reason, String(refusal.pushes), percent(refusal.pushes)])
        }
        return table
    }

    /// Accepted pushes the mock counted as irregular or as ones a device would drop, by kind.
    public var irregularTable: CSVTable {
        var table = CSVTable(columns: ["counter", "kind", "pushes", "share_percent"])
        for count in irregular {
            table.append([count.counter, count.kind, String(count.pushes), percent(count.pushes)])
        }
        return table
    }

    /// The per-token cadence at each percentile.
    public var cadenceTable: CSVTable {
        var table = CSVTable(columns: [
            "percentile", "gap_between_pushes_s", "pushes_per_token", "priority_10_pushes_per_token_per_hour",
        ])
        let cadence = cadence
        for (index, level) in Self.cadencePercentiles.enumerated() {
            table.append(
                [level, cadence.gapSeconds[index], cadence.pushesPerToken[index], cadence.priority10PerHour[index]]
                    .map { String(format: "%.3f", $0) }
            )
        }
        return table
    }

    /// `count` as a percentage of every push, two decimals.
    func percent(_ count: Int) -> String {
        String(format: "%.2f", records.isEmpty ? 0 : Double(count) * 100 / Double(records.count))
    }
}
