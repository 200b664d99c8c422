#!/bin/sh
# The service's deployment line, as a Procfile or a chart would hold it: its own settings, from
# what `pushbench profile` hands a service. Not a line of the service changes.
#
#   Tests/Services/netmera-sqlite/deploy.sh DATABASE
export PORT="$PUSHBENCH_SERVICE_PORT" APNS_KEY_FILE="$PUSHBENCH_AUTH_KEY" APNS_KEY_ID="$PUSHBENCH_KEY_ID" \
  APNS_TEAM_ID="$PUSHBENCH_TEAM_ID"
exec /usr/bin/python3 "$(dirname "$0")/service.py" --db "${1:?the SQLite database file}" --topic "$PUSHBENCH_TOPIC"
