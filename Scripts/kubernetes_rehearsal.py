#!/usr/bin/python3
"""Runs deploy/kubernetes/ as Kubernetes would, on one machine (Scripts/rehearse-kubernetes.sh).

Every pod of the manifests is a network namespace with its own address on a bridge that lives in
a namespace of its own (the machine's own network is untouched): the mock APNs (the Deployment
behind the Service `mock-apns`), Prometheus with the scrape job of deploy/prometheus/ (and a
dnsmasq beside it playing the cluster's DNS for the headless Service), and the Job's pods. A pod
resolves the Services' names through /etc/netns/NAME/hosts (and the DNS), sees the Secret, the
ConfigMap and the results volume bind-mounted at the manifest's mountPaths in a mount namespace
of its own, gets the Job's env and JOB_COMPLETION_INDEX, and runs the container's args exactly as
the manifest writes them, but for SCALE below.

It rehearses the Job twice: whole (the merged books must equal the mock's, the start skew must be
within --max-start-skew, Prometheus must have seen every pod up with its final figures), then with
one pod killed part-way (merge must name the missing shard and refuse; --partial must fall short
of the mock's books by exactly what the mock counted from that pod's address).
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
from datetime import datetime, timedelta, timezone

import yaml

# The one override of the manifest: the real Job sends 10 M activities from 8 pods of 4 CPUs; here
# 8 pods share 2 cores with the mock and Prometheus. It may scale the load and the pods' size, and
# shorten the metrics hold to two scrapes; it may never touch PROTECTED (the target, the files,
# the shard and the results): those are the manifest's.
SCALE = {"--activities": "80000", "--threads": "1", "--connections": "2", "--metrics-hold": "12s"}
PROTECTED = {"--endpoint", "--ca-file", "--auth-key", "--key-id", "--team-id", "--shard", "--start-at",
             "--reports-dir", "--metrics-port", "--metrics-host"}
SUBNET = "10.77.0"
MOCK_ADDRESS = f"{SUBNET}.2"
PROMETHEUS_ADDRESS = f"{SUBNET}.3"
PREFIX = "pbk-"
START_LEAD_S = 12            # PUSHBENCH_START_AT: the README says two minutes; the pods here start in seconds
LOST_SHARD = 5               # the pod killed in the second rehearsal


class Failure(Exception):
    """A check of the rehearsal that did not hold, in words."""


def say(line=""):
    print(line, flush=True)


def run(command, check=True, **options):
    result = subprocess.run(command, capture_output=True, text=True, **options)
    if check and result.returncode != 0:
        raise Failure(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.strip()}")
    return result


class Manifests:
    """The objects of deploy/kubernetes/ that the rehearsal plays, read as Kubernetes reads them."""

    def __init__(self, folder):
        objects = []
        for name in sorted(os.listdir(folder)):
            if name.endswith(".yaml"):
                with open(os.path.join(folder, name)) as file:
                    objects += [item for item in yaml.safe_load_all(file) if item]
        self.by_kind = {}
        for item in objects:
            self.by_kind.setdefault(item["kind"], []).append(item)
        self.job = self.one("Job")
        self.mock = self.one("Deployment")
        self.namespace = self.job["metadata"]["namespace"]
        self.headless = next(s for s in self.by_kind["Service"] if s["spec"].get("clusterIP") == "None")
        self.mock_service = next(s for s in self.by_kind["Service"] if s is not self.headless)

    def one(self, kind):
        found = self.by_kind.get(kind, [])
        if len(found) != 1:
            raise Failure(f"deploy/kubernetes/ should hold one {kind}, holds {len(found)}")
        return found[0]

    @staticmethod
    def container(workload):
        return workload["spec"]["template"]["spec"]["containers"][0]

    @staticmethod
    def mounts(workload):
        """(volume, mountPath, readOnly) of the container's volumeMounts."""
        spec = workload["spec"]["template"]["spec"]
        volumes = {volume["name"]: volume for volume in spec.get("volumes", [])}
        return [(volumes[mount["name"]], mount["mountPath"], mount.get("readOnly", False))
                for mount in Manifests.container(workload).get("volumeMounts", [])]

    def service_names(self, service):
        name = f"{service['metadata']['name']}.{self.namespace}.svc"
        return [name, name + ".cluster.local"]


def flag_values(args):
    """`--name=value` arguments as a dict (the manifests write every flag that way)."""
    values = {}
    for argument in args:
        if argument.startswith("--") and "=" in argument:
            name, value = argument.split("=", 1)
            values.setdefault(name, []).append(value)
    return values


def scaled(args):
    """The Job's args with SCALE applied, refusing an override of a protected flag."""
    touched = PROTECTED & set(SCALE)
    if touched:
        raise Failure(f"the rehearsal's override may not touch {sorted(touched)}")
    out = []
    for argument in args:
        name = argument.split("=", 1)[0]
        out.append(f"{name}={SCALE[name]}" if name in SCALE and "=" in argument else argument)
    return out


class Cluster:
    """The namespaces, links, files and processes of one rehearsal; `close` removes them all."""

    def __init__(self, manifests, workdir, binary):
        self.manifests = manifests
        self.workdir = workdir
        self.binary = binary
        self.namespaces = []
        self.netns_files = []
        self.created_dirs = []
        self.processes = []
        self.pods = {}          # name -> address

    # -- network -----------------------------------------------------------------------------

    def bridge(self):
        self.add_namespace("bridge")
        run(["ip", "-n", PREFIX + "bridge", "link", "add", "br0", "type", "bridge"])
        run(["ip", "-n", PREFIX + "bridge", "link", "set", "br0", "up"])

    def add_namespace(self, name):
        namespace = PREFIX + name
        run(["ip", "netns", "add", namespace])
        self.namespaces.append(namespace)
        run(["ip", "-n", namespace, "link", "set", "lo", "up"])
        return namespace

    def add_pod(self, name, address, hosts):
        """A pod: its namespace, a veth into the bridge, its address, its /etc/hosts and DNS."""
        namespace = self.add_namespace(name)
        index = len(self.pods)
        host_end = f"pbkv{index}"
        run(["ip", "link", "add", host_end, "netns", PREFIX + "bridge", "type", "veth",
             "peer", "name", "eth0", "netns", namespace])
        run(["ip", "-n", PREFIX + "bridge", "link", "set", host_end, "master", "br0", "up"])
        run(["ip", "-n", namespace, "addr", "add", f"{address}/24", "dev", "eth0"])
        run(["ip", "-n", namespace, "link", "set", "eth0", "up"])
        folder = f"/etc/netns/{namespace}"
        os.makedirs(folder, exist_ok=True)
        self.netns_files.append(folder)
        with open(f"{folder}/hosts", "w") as file:
            file.write(f"127.0.0.1 localhost\n::1 localhost\n{address} {name}\n")
            for line in hosts:
                file.write(line + "\n")
        with open(f"{folder}/resolv.conf", "w") as file:
            file.write(f"nameserver {PROMETHEUS_ADDRESS}\nsearch {self.manifests.namespace}.svc.cluster.local "
                       "svc.cluster.local cluster.local\n")
        self.pods[name] = address
        return namespace

    # -- processes ---------------------------------------------------------------------------

    def start(self, name, command, env=None, mounts=(), log=None):
        """`command` in pod `name`'s namespaces, with `mounts` bind-mounted in its own mount namespace."""
        script = "set -e\n"
        for source, target, read_only in mounts:
            self.ensure_mount_point(target)
            script += f'mount --bind "{source}" "{target}"\n'
            if read_only:
                script += f'mount -o remount,bind,ro "{target}"\n'
        script += 'exec "$@"\n'
        full = ["ip", "netns", "exec", PREFIX + name, "unshare", "--mount", "--propagation", "private",
                "/bin/sh", "-c", script, "sh"] + command
        with open(log or os.path.join(self.workdir, f"{name}.log"), "w") as output:
            process = subprocess.Popen(full, env=env or self.base_env(), stdout=output, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        self.processes.append(process)
        return process

    def in_pod(self, name, command, check=True):
        return run(["ip", "netns", "exec", PREFIX + name] + command, check=check)

    @staticmethod
    def base_env():
        return {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}

    def ensure_mount_point(self, path):
        """Makes a mount point the machine lacks (kept empty; removed by `close`)."""
        missing = []
        probe = path
        while not os.path.exists(probe):
            missing.append(probe)
            probe = os.path.dirname(probe)
        for folder in reversed(missing):
            os.mkdir(folder)
            self.created_dirs.append(folder)

    def stop(self, process, sig=signal.SIGTERM):
        if process.poll() is None:
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                pass
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def close(self):
        for process in self.processes:
            self.stop(process)
        for namespace in reversed(self.namespaces):
            run(["ip", "netns", "del", namespace], check=False)
        for folder in self.netns_files:
            shutil.rmtree(folder, ignore_errors=True)
        for folder in reversed(self.created_dirs):
            try:
                os.rmdir(folder)
            except OSError as error:
                say(f"warning: left {folder}: {error}")


def volume_folder(workdir, volume):
    for kind, key in (("secret", "secretName"), ("configMap", "name"), ("persistentVolumeClaim", "claimName")):
        if kind in volume:
            return os.path.join(workdir, kind, volume[kind][key])
    if "emptyDir" in volume:
        return os.path.join(workdir, "emptyDir", volume["name"])
    raise Failure(f"volume {volume['name']}: the rehearsal plays secret, configMap, PVC and emptyDir volumes only")


def file_behind(path, mounts, workdir):
    """Where the rehearsal keeps the file a pod sees at `path` (under one of its mountPaths)."""
    for volume, mount_path, _ in mounts:
        if path.startswith(mount_path.rstrip("/") + "/"):
            return os.path.join(volume_folder(workdir, volume), path[len(mount_path.rstrip("/")) + 1:])
    raise Failure(f"{path} is under none of the pod's mountPaths")


def fetch_json(cluster, pod, url, ca=None):
    command = ["curl", "-sS", "--fail", "--max-time", "5"] + (["--cacert", ca] if ca else []) + [url]
    return json.loads(cluster.in_pod(pod, command).stdout)


class Rehearsal:
    def __init__(self, root, binary, workdir):
        self.root = root
        self.binary = binary
        self.workdir = workdir
        self.manifests = Manifests(os.path.join(root, "deploy/kubernetes"))
        self.job_container = Manifests.container(self.manifests.job)
        self.job_mounts = Manifests.mounts(self.manifests.job)
        self.args = scaled(self.job_container["args"])
        self.flags = flag_values(self.args)
        self.completions = self.manifests.job["spec"]["completions"]
        if self.manifests.job["spec"].get("parallelism") != self.completions:
            raise Failure("the Job's parallelism differs from its completions: its shards would not run as one load")
        self.endpoint = urllib.parse.urlparse(self.flags["--endpoint"][0])
        self.results = volume_folder(workdir, next(v for v, p, _ in self.job_mounts
                                                   if self.flags["--reports-dir"][0].startswith(p)))
        self.pod_addresses = {i: f"{SUBNET}.{11 + i}" for i in range(self.completions)}

    # -- the cluster -------------------------------------------------------------------------

    def build(self):
        cluster = Cluster(self.manifests, self.workdir, self.binary)
        self.cluster = cluster
        cluster.bridge()
        services = self.manifests.service_names(self.manifests.mock_service)
        if self.endpoint.hostname not in services:
            raise Failure(f"the Job dials {self.endpoint.hostname}, which no Service of the manifests names")
        mock_line = f"{MOCK_ADDRESS} " + " ".join(services)
        headless = self.manifests.service_names(self.manifests.headless)
        pod_lines = [f"{address} {headless[1]}" for address in self.pod_addresses.values()]
        cluster.add_pod("mock", MOCK_ADDRESS, [mock_line])
        cluster.add_pod("prom", PROMETHEUS_ADDRESS, [mock_line])
        for index, address in self.pod_addresses.items():
            cluster.add_pod(f"pod-{index}", address, [mock_line])
        dns_hosts = os.path.join(self.workdir, "cluster-dns.hosts")
        with open(dns_hosts, "w") as file:
            file.write("\n".join([mock_line] + pod_lines) + "\n")
        cluster.start("prom", ["dnsmasq", "--keep-in-foreground", "--no-resolv", "--no-hosts",
                               f"--addn-hosts={dns_hosts}", f"--listen-address={PROMETHEUS_ADDRESS}",
                               "--bind-interfaces", "--user=root", "--pid-file=" + os.path.join(self.workdir, "dns.pid")],
                      log=os.path.join(self.workdir, "dns.log"))
        self.make_secret()
        say(f"cluster: bridge namespace {PREFIX}bridge, Service {services[0]} at {MOCK_ADDRESS}, "
            f"Prometheus and the cluster DNS at {PROMETHEUS_ADDRESS}, {self.completions} pods at "
            f"{self.pod_addresses[0]}..{self.pod_addresses[self.completions - 1]}")

    def make_secret(self):
        """The Secret `kubectl create secret generic ... --from-file=AuthKey.p8=...` makes: a P-256 key."""
        key = file_behind(self.flags["--auth-key"][0], self.job_mounts, self.workdir)
        os.makedirs(os.path.dirname(key), exist_ok=True)
        run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key])
        volume = next(v for v, p, _ in self.job_mounts if "secret" in v and key.startswith(volume_folder(self.workdir, v)))
        os.chmod(key, volume["secret"].get("defaultMode", 0o644))

    def start_mock(self, label):
        """The Deployment's container, as the manifest runs it; its certificate into the ConfigMap."""
        container = Manifests.container(self.manifests.mock)
        mounts = Manifests.mounts(self.manifests.mock)
        flags = flag_values(container["args"])
        ca_in_pod = file_behind(self.flags["--ca-file"][0], self.job_mounts, self.workdir)
        written = file_behind(flags["--cert-out"][0], mounts, self.workdir)
        for volume, _, _ in mounts:
            os.makedirs(volume_folder(self.workdir, volume), exist_ok=True)
        if os.path.exists(written):
            os.remove(written)
        self.mock = self.cluster.start(
            "mock", [self.binary] + container["args"],
            mounts=[(volume_folder(self.workdir, v), p, ro) for v, p, ro in mounts],
            log=os.path.join(self.workdir, f"mock-{label}.log"))
        deadline = time.time() + 20
        while not os.path.exists(written) or os.path.getsize(written) == 0:
            if self.mock.poll() is not None or time.time() > deadline:
                raise Failure(f"the mock did not start: see {self.workdir}/mock-{label}.log")
            time.sleep(0.1)
        # kubectl create configmap pushbench-mock-ca --from-file=mock.pem
        os.makedirs(os.path.dirname(ca_in_pod), exist_ok=True)
        shutil.copyfile(written, ca_in_pod)
        self.ca = ca_in_pod
        self.admin = f"http://{MOCK_ADDRESS}:{flag_values(container['args'])['--admin-port'][0]}/stats"
        self.wait_for(lambda: self.cluster.in_pod("pod-0", ["curl", "-sS", "--max-time", "2", "-o", "/dev/null",
                                                            self.admin], check=False).returncode == 0,
                      10, "the mock's admin port")

    def stop_mock(self):
        self.cluster.stop(self.mock, signal.SIGINT)

    @staticmethod
    def wait_for(condition, seconds, what):
        deadline = time.time() + seconds
        while not condition():
            if time.time() > deadline:
                raise Failure(f"timed out after {seconds} s waiting for {what}")
            time.sleep(0.2)

    # -- the certificate ---------------------------------------------------------------------

    def check_certificate(self):
        """The mock in one namespace, a sender verifying it from another (no --insecure): refused
        when the certificate does not name the address dialled, as every mock's did before it named
        --host, and verified once it does."""
        say("\n== the mock's certificate, verified across namespaces (no --insecure)")
        for label, host in (("wildcard", "0.0.0.0"), ("named", MOCK_ADDRESS)):
            cert = os.path.join(self.workdir, f"{label}-ca.pem")
            mock = self.cluster.start("mock", [self.binary, "mock", "--host", host, "--port", "2198",
                                               "--cert-out", cert], log=os.path.join(self.workdir, f"{label}-mock.log"))
            self.wait_for(lambda: os.path.exists(cert) and os.path.getsize(cert) > 0, 20, "the mock's --cert-out")
            names = run(["openssl", "x509", "-in", cert, "-noout", "-ext", "subjectAltName"]).stdout.split("\n", 1)[1]
            say(f"pushbench mock --host {host} --cert-out ca.pem: the certificate names {names.strip()}")
            sender = self.cluster.in_pod("pod-0", [
                self.binary, "run", "--endpoint", f"https://{MOCK_ADDRESS}:2198", "--ca-file", cert,
                "--requests", "500", "--no-budget", "--reports-dir", os.path.join(self.workdir, label)], check=False)
            self.cluster.stop(mock, signal.SIGINT)
            say(f"  pushbench run --endpoint https://{MOCK_ADDRESS}:2198 --ca-file ca.pem, from pod-0 "
                f"({self.pod_addresses[0]}): exit {sender.returncode}")
            output = sender.stdout + sender.stderr
            shown = [line for line in output.splitlines()
                     if line.startswith(("mock's count", "throughput")) or "certificate_untrusted" in line]
            for line in shown[:4]:
                say("    " + line.strip())
            untrusted = "certificate_untrusted" in output
            if label == "wildcard" and (sender.returncode == 0 or not untrusted):
                raise Failure("a certificate that does not name the address dialled should be refused:\n" + output[-2000:])
            if label == "named" and (sender.returncode != 0 or untrusted):
                raise Failure("a sender in another namespace could not verify the mock's certificate:\n" + output[-2000:])

    # -- one Job -----------------------------------------------------------------------------

    def job_env(self, index, start_at):
        env = self.cluster.base_env()
        for variable in self.job_container.get("env", []):
            env[variable["name"]] = variable["value"].replace("${PUSHBENCH_START_AT}", start_at)
        env["JOB_COMPLETION_INDEX"] = str(index)
        env["HOSTNAME"] = f"{self.manifests.job['metadata']['name']}-{index}"
        return env

    def run_job(self, label, kill=None):
        """Starts every pod at once; with `kill`, SIGKILLs that shard's pod once the mock has a
        quarter of its share. Returns the mock's /stats, the pods' exit codes and Prometheus' view."""
        say(f"\n== Job '{label}': {self.completions} pods, args as the manifest writes them but "
            + ", ".join(f"{k}={v}" for k, v in SCALE.items()))
        self.start_mock(label)
        shutil.rmtree(self.results, ignore_errors=True)
        os.makedirs(self.results)
        instant = (datetime.now(timezone.utc) + timedelta(seconds=START_LEAD_S)).replace(microsecond=0)
        start_at = instant.strftime("%Y-%m-%dT%H:%M:%SZ")
        prometheus = self.start_prometheus(label)
        mounts = [(volume_folder(self.workdir, v), p, ro) for v, p, ro in self.job_mounts]
        pods = {}
        for index in range(self.completions):
            pods[index] = self.cluster.start(
                f"pod-{index}", [self.binary] + self.args, env=self.job_env(index, start_at), mounts=mounts,
                log=os.path.join(self.workdir, f"{label}-pod-{index}.log"))
        say(f"PUSHBENCH_START_AT={start_at}, PUSHBENCH_SHARD_COUNT="
            f"{self.job_env(0, start_at).get('PUSHBENCH_SHARD_COUNT')}, JOB_COMPLETION_INDEX 0..{self.completions - 1}")
        seen_up = set()
        killed = None
        deadline = time.time() + START_LEAD_S + 90
        while any(pod.poll() is None for pod in pods.values()):
            if time.time() > deadline:
                raise Failure(f"Job '{label}' did not finish within {START_LEAD_S + 90} s")
            seen_up |= self.targets_up()
            if kill is not None and killed is None:
                killed = self.maybe_kill(pods[kill], kill)
            time.sleep(0.25 if kill is not None and killed is None else 1)
        codes = {index: pod.returncode for index, pod in pods.items()}
        stats = fetch_json(self.cluster, "pod-0", f"https://{self.endpoint.hostname}:{self.endpoint.port}/stats",
                           ca=self.ca)
        with open(os.path.join(self.workdir, f"{label}-stats.json"), "w") as file:
            json.dump(stats, file)
        sent = self.prometheus_sent()
        self.cluster.stop(prometheus)
        self.stop_mock()
        return stats, codes, seen_up, sent, killed

    def maybe_kill(self, pod, index):
        """SIGKILLs shard `index`'s pod once the mock has counted a quarter of its share from it."""
        by_client = fetch_json(self.cluster, "pod-0", self.admin).get("pushes_by_client_address", {})
        counted = by_client.get(self.pod_addresses[index], 0)
        share = int(SCALE["--activities"]) // self.completions
        if counted < share // 4:
            if pod.poll() is not None:
                raise Failure(f"shard {index}'s pod ended before it could be killed part-way")
            return None
        os.killpg(pod.pid, signal.SIGKILL)
        say(f"killed pod {index} ({self.pod_addresses[index]}) with SIGKILL, the mock having counted "
            f"{counted} of its pushes so far")
        return counted

    # -- Prometheus --------------------------------------------------------------------------

    def start_prometheus(self, label):
        storage = os.path.join(self.workdir, f"prometheus-{label}")
        config = os.path.join(self.root, "deploy/prometheus/pushbench-scrape.yaml")
        process = self.cluster.start("prom", ["prometheus", f"--config.file={config}",
                                              f"--storage.tsdb.path={storage}",
                                              f"--web.listen-address={PROMETHEUS_ADDRESS}:9090", "--log.level=warn"],
                                     log=os.path.join(self.workdir, f"prometheus-{label}.log"))
        self.wait_for(lambda: self.cluster.in_pod("prom", ["curl", "-sS", "--max-time", "2", "-o", "/dev/null",
                                                           f"http://{PROMETHEUS_ADDRESS}:9090/-/ready"],
                                                  check=False).returncode == 0, 30, "Prometheus")
        return process

    def targets_up(self):
        result = self.cluster.in_pod("prom", ["curl", "-sS", "--max-time", "2",
                                              f"http://{PROMETHEUS_ADDRESS}:9090/api/v1/targets"], check=False)
        if result.returncode != 0:
            return set()
        targets = json.loads(result.stdout)["data"]["activeTargets"]
        return {t["labels"]["instance"] for t in targets if t["health"] == "up"}

    def prometheus_sent(self):
        """Each shard's last pushbench_run_pushes_sent_total as Prometheus scraped it."""
        query = urllib.parse.quote("max by (shard) (last_over_time(pushbench_run_pushes_sent_total[10m]))")
        answer = fetch_json(self.cluster, "prom", f"http://{PROMETHEUS_ADDRESS}:9090/api/v1/query?query={query}")
        return {int(r["metric"]["shard"]): int(float(r["value"][1])) for r in answer["data"]["result"]}

    # -- merge -------------------------------------------------------------------------------

    def shard_folders(self):
        return sorted(os.path.join(self.results, name) for name in os.listdir(self.results)
                      if re.search(rf"-shard-\d+-of-{self.completions}$", name))

    def merge(self, label, extra=()):
        output = os.path.join(self.workdir, f"{label}-merged")
        command = [self.binary, "merge"] + self.shard_folders() + ["-o", output, "--server-stats",
                                                                     os.path.join(self.workdir, f"{label}-stats.json")]
        result = run(command + list(extra), check=False)
        summary = None
        if os.path.exists(os.path.join(output, "summary.json")):
            with open(os.path.join(output, "summary.json")) as file:
                summary = json.load(file)
        return result, summary

    @staticmethod
    def answered(counts):
        return counts["succeeded"] + counts["rejected"]

    def shard_summaries(self):
        summaries = {}
        for folder in self.shard_folders():
            with open(os.path.join(folder, "summary.json")) as file:
                summary = json.load(file)
            summaries[summary["shard"]["index"]] = summary
        return summaries

    def report_pods(self, stats, codes, summaries):
        by_client = stats.get("pushes_by_client_address", {})
        say(f"{'pod':<6} {'address':<12} {'shard':<6} {'exit':>4} {'sent':>7} {'answered':>9} {'mock counted':>13}")
        for index, address in self.pod_addresses.items():
            summary = summaries.get(index)
            sent = summary["counts"]["sent"] if summary else "-"
            answered = self.answered(summary["counts"]) if summary else "-"
            say(f"pod-{index:<2} {address:<12} {f'{index}/{self.completions}':<6} {codes[index]:>4} {sent:>7} "
                f"{answered:>9} {by_client.get(address, 0):>13}")
            if summary and answered != by_client.get(address, 0):
                raise Failure(f"shard {index}: the pod counted {answered} answers, the mock {by_client.get(address, 0)} "
                              f"from {address}")

    # -- the two rehearsals --------------------------------------------------------------------

    def whole(self):
        stats, codes, seen_up, sent, _ = self.run_job("whole")
        summaries = self.shard_summaries()
        self.report_pods(stats, codes, summaries)
        if any(codes.values()) or len(summaries) != self.completions:
            raise Failure(f"every pod should exit 0 and write its shard: exits {codes}")
        result, merged = self.merge("whole")
        say(result.stdout.strip().splitlines()[0] if result.stdout else "")
        for line in result.stdout.splitlines():
            if line.startswith(("counts", "mock's count")):
                say(line)
        if result.returncode != 0 or merged is None:
            raise Failure(f"merge failed ({result.returncode}): {result.stdout[-1500:]}{result.stderr}")
        skew = re.search(r"start skew: ([\d.]+) ms", result.stdout)
        say(f"merged books: {self.answered(merged['counts'])} answered, {merged['counts']['succeeded']} accepted; "
            f"the mock's: {stats['pushes']} answered, {stats['accepted']} accepted; start skew {skew.group(1)} ms")
        if self.answered(merged["counts"]) != stats["pushes"] or merged["counts"]["succeeded"] != stats["accepted"]:
            raise Failure("the merged books differ from the mock's")
        expected = {f"{address}:{9464}" for address in self.pod_addresses.values()}
        say(f"Prometheus saw {len(seen_up & expected)} of {len(expected)} pods up: {', '.join(sorted(seen_up))}")
        say("Prometheus' last pushbench_run_pushes_sent_total by shard: "
            + ", ".join(f"{shard}: {value}" for shard, value in sorted(sent.items())))
        if seen_up & expected != expected:
            raise Failure(f"Prometheus never saw {sorted(expected - seen_up)} up")
        for index, summary in summaries.items():
            if sent.get(index) != summary["counts"]["sent"]:
                raise Failure(f"shard {index}: Prometheus' last figure {sent.get(index)} is not the summary's "
                              f"{summary['counts']['sent']}")

    def lost_pod(self):
        stats, codes, _, _, killed = self.run_job("lost-pod", kill=LOST_SHARD)
        summaries = self.shard_summaries()
        self.report_pods(stats, codes, summaries)
        if LOST_SHARD in summaries or codes[LOST_SHARD] != -signal.SIGKILL:
            raise Failure(f"pod {LOST_SHARD} should have died without a report (exit {codes[LOST_SHARD]})")
        refused, _ = self.merge("lost-pod")
        say(f"pushbench merge (the 7 shards there are): exit {refused.returncode}: {refused.stderr.strip()}")
        if refused.returncode == 0 or f"{LOST_SHARD}/{self.completions} missing" not in refused.stderr:
            raise Failure("merge should refuse a run with a shard missing, naming it")
        partial, merged = self.merge("lost-pod", ["--partial"])
        lines = [line for line in partial.stdout.splitlines() if line.startswith(("PARTIAL", "the mock answered"))]
        say(f"pushbench merge --partial: exit {partial.returncode}")
        for line in lines + partial.stderr.strip().splitlines()[-1:]:
            say("  " + line)
        lost = stats["pushes_by_client_address"].get(self.pod_addresses[LOST_SHARD], 0)
        difference = stats["pushes"] - self.answered(merged["counts"])
        say(f"the mock's books exceed the merged ones by {difference}; the mock counted {lost} pushes from pod "
            f"{LOST_SHARD} ({self.pod_addresses[LOST_SHARD]}), {killed} of them before it was killed")
        if partial.returncode != 5 or merged["shard"].get("partial", {}).get("missing") != [LOST_SHARD]:
            raise Failure("merge --partial should write a report marked partial and exit 5")
        if difference != lost or lost == 0:
            raise Failure("the mock's and the merged books should differ by exactly what the lost pod sent")


def main():
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    binary = os.path.abspath(os.environ.get("PUSHBENCH", os.path.join(root, ".build/release/pushbench")))
    keep = "--keep" in sys.argv
    stale = [line.split()[0] for line in run(["ip", "netns", "list"]).stdout.splitlines()
             if line.startswith(PREFIX)]
    if stale:
        raise Failure(f"namespaces of another rehearsal exist ({', '.join(stale)}): is one running? "
                      f"If not, remove them: ip netns del NAME")
    workdir = tempfile.mkdtemp(prefix="pushbench-rehearsal-")
    started = time.time()
    rehearsal = Rehearsal(root, binary, workdir)
    try:
        rehearsal.build()
        rehearsal.check_certificate()
        rehearsal.whole()
        rehearsal.lost_pod()
        say(f"\nrehearsal passed in {time.time() - started:.1f} s")
    finally:
        rehearsal.cluster.close() if hasattr(rehearsal, "cluster") else None
        if keep:
            say(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        main()
    except Failure as failure:
        print(f"rehearsal FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("rehearsal interrupted; everything it made is removed", file=sys.stderr)
        sys.exit(130)
