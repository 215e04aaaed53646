"""The Kubernetes manifests: every overlay renders with kubectl's kustomize (v5 or newer) in current syntax,
without a warning; every built-in object validates against Kubernetes' schemas (strict: unknown fields are
errors); every custom resource validates against the CRD schemas kept in k8s/crds; and the rendered objects keep
the operational policies."""

from __future__ import annotations

import copy
import re
import shutil
import warnings
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgspec
import pytest
import yaml

from benthic.runtime.config import Settings
from tests.ops.opstools import (
    ARCHIVE_CLIENTS,
    K8S,
    OVERLAYS,
    ROOT,
    SERVICES,
    by_kind,
    kubectl,
    kustomize_version,
    module,
    render,
    rendered,
    run,
    setting_names,
)

# The Kubernetes versions the manifests must be valid for: the oldest schema set kubernetes-validate ships
# and its newest.
K8S_VERSIONS = ("1.25.0", "latest")
CUSTOM_KINDS = {
    ("keda.sh", "ScaledObject"),
    ("keda.sh", "TriggerAuthentication"),
    ("monitoring.coreos.com", "ServiceMonitor"),
    ("monitoring.coreos.com", "PrometheusRule"),
}
CLUSTER_SCOPED = {"Namespace"}
SECRET = "benthic-secrets"
# The secret keys each service reads (as files); the archive's DSN only where the archive is used.
SECRET_KEYS = {"BENTHIC_TOKEN_KEYS", "BENTHIC_OPERATOR_TOKEN", "REDIS_URL"}
ARCHIVE_DSN = "BENTHIC_ARCHIVE_URL"
PLACEHOLDER_DIGEST = "sha256:" + "0" * 64  # replaced by the release pipeline (docs/OPERATIONS.md)
UVICORN_GRACEFUL_S = 20  # benthic.service.serve: uvicorn's timeout_graceful_shutdown


def _group(obj: dict[str, Any]) -> str:
    return obj["apiVersion"].rpartition("/")[0]


def _is_custom(obj: dict[str, Any]) -> bool:
    return (_group(obj), obj["kind"]) in CUSTOM_KINDS


# ---------------------------------------------------------------------------------------------- rendering


# Fields kustomize v5 deprecates (each prints a warning) and their replacements.
DEPRECATED_FIELDS = {
    "bases": "resources",
    "patchesStrategicMerge": "patches",
    "patchesJson6902": "patches",
    "commonLabels": "labels",
    "vars": "replacements",
}


def test_kustomize_is_v5_or_newer() -> None:
    assert kustomize_version(kubectl()) >= (5, 0, 0), "the manifests use kustomize v5 syntax"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_overlay_renders_without_a_warning(overlay: str) -> None:
    text, warnings_printed = rendered(overlay)
    assert text.strip(), f"{overlay} renders nothing"
    assert not warnings_printed.strip(), f"kustomize warns on {overlay}:\n{warnings_printed}"


def test_kustomize_warns_on_deprecated_syntax(tmp_path: Path) -> None:
    """The check above is not vacuous: this kustomize does print a warning for a deprecated field."""
    shutil.copytree(K8S / "base/secret", tmp_path / "secret")
    (tmp_path / "kustomization.yaml").write_text("bases:\n  - secret\n")
    result = run([kubectl(), "kustomize", str(tmp_path)])
    assert result.returncode == 0, result.stderr
    assert "deprecated" in result.stderr


def test_kustomizations_use_current_syntax_only() -> None:
    files = sorted(K8S.rglob("kustomization.yaml"))
    assert len(files) >= len(OVERLAYS)
    for path in files:
        kustomization = yaml.safe_load(path.read_text())
        old = {f"{k} (use {v})" for k, v in DEPRECATED_FIELDS.items() if k in kustomization}
        assert not old, f"{path.relative_to(K8S)}: deprecated {old}"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_everything_lands_in_the_benthic_namespace(overlay: str) -> None:
    for obj in render(overlay):
        if obj["kind"] in CLUSTER_SCOPED:
            assert obj["metadata"]["name"] == "benthic"
        else:
            assert obj["metadata"].get("namespace") == "benthic", (obj["kind"], obj["metadata"]["name"])


# ---------------------------------------------------------------------------------------------- schemas


def _validate_builtin(obj: dict[str, Any], version: str) -> None:
    kv = module("kubernetes_validate")
    kv.validate(obj, kv.latest_version() if version == "latest" else version, strict=True)


@pytest.mark.parametrize("version", K8S_VERSIONS)
@pytest.mark.parametrize("overlay", OVERLAYS)
def test_builtin_objects_validate_against_kubernetes_schemas(overlay: str, version: str) -> None:
    kv = module("kubernetes_validate")
    errors = []
    for obj in render(overlay):
        if _is_custom(obj):
            continue
        try:
            _validate_builtin(obj, version)
        except kv.ValidationError as error:
            errors.append(f"{obj['kind']}/{obj['metadata']['name']}: {error.message} at {list(error.path)}")
    assert not errors, "\n".join(errors)


def _crd_schemas() -> dict[tuple[str, str, str], dict[str, Any]]:
    schemas = {}
    for path in sorted((K8S / "crds").glob("*.yaml")):
        crd = yaml.safe_load(path.read_text())
        for version in crd["spec"]["versions"]:
            key = (f"{crd['spec']['group']}/{version['name']}", crd["spec"]["names"]["kind"], path.name)
            schemas[key] = _strict(copy.deepcopy(version["schema"]["openAPIV3Schema"]))
    return schemas


def _strict(schema: dict[str, Any]) -> dict[str, Any]:
    """A CRD's structural schema as JSON Schema that rejects unknown fields, as strict field validation does
    (objects that preserve unknown fields, or are maps through additionalProperties, stay open)."""
    if (
        schema.get("type") == "object"
        and "properties" in schema
        and "additionalProperties" not in schema
        and not schema.get("x-kubernetes-preserve-unknown-fields")
        and set(schema["properties"]) != set()
    ):
        schema["additionalProperties"] = False
    for key in ("properties",):
        for sub in schema.get(key, {}).values():
            _strict(sub)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _strict(schema[key])
    for key in ("anyOf", "allOf", "oneOf"):
        for sub in schema.get(key, []):
            _strict(sub)
    return schema


def _validate_custom(obj: dict[str, Any]) -> None:
    jsonschema = module("jsonschema")
    matches = [
        s for (api, kind, _), s in _crd_schemas().items() if api == obj["apiVersion"] and kind == obj["kind"]
    ]
    assert matches, f"no CRD schema in k8s/crds for {obj['apiVersion']} {obj['kind']}"
    # The schema is not checked against the JSON Schema meta-schema: CRD patterns are Go regexes, not ECMA.
    jsonschema.Draft7Validator(matches[0]).validate(obj)
    name = obj["metadata"]["name"]
    assert re.fullmatch(r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?", name), f"bad object name {name!r}"


def test_crd_schemas_are_valid_crds() -> None:
    kv = module("kubernetes_validate")
    kinds = set()
    for path in sorted((K8S / "crds").glob("*.yaml")):
        crd = yaml.safe_load(path.read_text())
        kv.validate(crd, kv.latest_version(), strict=True)
        kinds.add((crd["spec"]["group"], crd["spec"]["names"]["kind"]))
    assert kinds == CUSTOM_KINDS


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_custom_resources_validate_against_the_crd_schemas_in_the_repo(overlay: str) -> None:
    module("jsonschema")
    custom = [o for o in render(overlay) if _is_custom(o)]
    assert {o["kind"] for o in custom} >= {"ServiceMonitor", "PrometheusRule"}
    for obj in custom:
        _validate_custom(obj)


def test_validators_reject_mistakes() -> None:
    """The checks above are not vacuous: a typo, a wrong type or a bad pattern fails each of them."""
    kv = module("kubernetes_validate")
    jsonschema = module("jsonschema")
    objects = render("base")
    deployment = copy.deepcopy(by_kind(objects, "Deployment")["benthic-command"])
    deployment["spec"]["replica"] = 2
    with pytest.raises(kv.ValidationError):
        _validate_builtin(deployment, "latest")
    deployment = copy.deepcopy(by_kind(objects, "Deployment")["benthic-command"])
    deployment["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"] = ["1"]
    with pytest.raises(kv.ValidationError):
        _validate_builtin(deployment, "latest")
    scaled = copy.deepcopy(by_kind(objects, "ScaledObject")["benthic-scoring"])
    scaled["spec"]["minReplicas"] = 1
    with pytest.raises(jsonschema.ValidationError):
        _validate_custom(scaled)
    scaled = copy.deepcopy(by_kind(objects, "ScaledObject")["benthic-scoring"])
    scaled["spec"]["triggers"][0]["metadata"]["lagCount"] = 200
    with pytest.raises(jsonschema.ValidationError):
        _validate_custom(scaled)
    monitor = copy.deepcopy(by_kind(objects, "ServiceMonitor")["benthic"])
    monitor["spec"]["endpoints"][0]["interval"] = "15 seconds"
    with pytest.raises(jsonschema.ValidationError):
        _validate_custom(monitor)
    rule = copy.deepcopy(by_kind(objects, "PrometheusRule")["benthic"])
    rule["spec"]["groups"][0]["rules"][0]["for"] = "five minutes"
    with pytest.raises(jsonschema.ValidationError):
        _validate_custom(rule)


# ---------------------------------------------------------------------------------------------- policies


def _config(objects: list[dict[str, Any]]) -> dict[str, str]:
    return by_kind(objects, "ConfigMap")["benthic-config"]["data"]


def _matches(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
        return False
    for expression in selector.get("matchExpressions", []):
        value = labels.get(expression["key"])
        if expression["operator"] == "In" and value not in expression["values"]:
            return False
        if expression["operator"] == "NotIn" and value in expression["values"]:
            return False
        if expression["operator"] == "Exists" and value is None:
            return False
    return True


def _check_container_security(where: str, pod: dict[str, Any], container: dict[str, Any]) -> None:
    pod_context = pod.get("securityContext", {})
    context = container.get("securityContext", {})
    assert pod_context.get("runAsNonRoot") is True or context.get("runAsNonRoot") is True, where
    assert (context.get("runAsUser") or pod_context.get("runAsUser") or 0) > 0, f"{where}: runs as root"
    assert pod_context.get("seccompProfile", {}).get("type") == "RuntimeDefault", where
    assert context.get("allowPrivilegeEscalation") is False, where
    assert context.get("readOnlyRootFilesystem") is True, where
    assert context.get("privileged") in (None, False), where
    assert context.get("capabilities", {}).get("drop") == ["ALL"], where
    assert not context.get("capabilities", {}).get("add"), where
    resources = container.get("resources", {})
    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(resources.get(kind, {})), f"{where}: {kind} of cpu and memory"
    assert pod.get("automountServiceAccountToken") is False, where


def _check_secret_files(where: str, pod: dict[str, Any], container: dict[str, Any], keys: set[str]) -> None:
    """The Secret reaches the service as files: a read-only volume of exactly `keys`, one <KEY>_FILE variable
    naming each file, and no secret in any environment variable."""
    for entry in container.get("env", []):
        assert "secretKeyRef" not in entry.get("valueFrom", {}), f"{where}: {entry['name']} from a Secret"
    (volume,) = [v for v in pod["volumes"] if "secret" in v]
    assert volume["secret"]["secretName"] == SECRET, where
    assert volume["secret"]["defaultMode"] & 0o337 == 0, (
        f"{where}: secret files readable by owner and group only"
    )
    items = {i["key"]: i["path"] for i in volume["secret"]["items"]}
    assert set(items) == keys, f"{where}: mounts {set(items)}, reads {keys}"
    (mount,) = [m for m in container["volumeMounts"] if m["name"] == volume["name"]]
    assert mount["readOnly"] is True, where
    pointers = {e["name"]: e["value"] for e in container["env"] if e["name"].endswith("_FILE")}
    assert pointers == {f"{k}_FILE": f"{mount['mountPath']}/{items[k]}" for k in keys}, where
    assert {p.removesuffix("_FILE") for p in pointers} <= setting_names(), f"{where}: a pointer to no setting"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_deployments_have_probes_security_limits_spread_and_graceful_shutdown(overlay: str) -> None:
    objects = render(overlay)
    config = _config(objects)
    deployments = by_kind(objects, "Deployment")
    assert set(deployments) == {f"benthic-{s}" for s in SERVICES}
    images = set()
    for service, port in SERVICES.items():
        deployment = deployments[f"benthic-{service}"]
        pod = deployment["spec"]["template"]["spec"]
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert _matches(deployment["spec"]["selector"], labels)
        (container,) = pod["containers"]
        where = f"{overlay}: {service}"
        images.add(container["image"])
        assert container["args"] == [service], f"{where}: `benthic serve {service}`"
        assert container["ports"] == [{"name": "http", "containerPort": port, "protocol": "TCP"}], where
        for probe, path in (
            ("startupProbe", "/healthz"),
            ("livenessProbe", "/healthz"),
            ("readinessProbe", "/readyz"),
        ):
            assert container[probe]["httpGet"] == {"path": path, "port": "http"}, f"{where}: {probe}"
            assert container[probe].get("timeoutSeconds", 1) >= 1
        _check_container_security(where, pod, container)
        mounts = {m["mountPath"] for m in container.get("volumeMounts", [])}
        assert "/tmp" in mounts, f"{where}: a writable /tmp beside the read-only root filesystem"
        spread = pod["topologySpreadConstraints"]
        assert {c["topologyKey"] for c in spread} >= {"kubernetes.io/hostname", "topology.kubernetes.io/zone"}
        assert all(_matches(c["labelSelector"], labels) for c in spread), where
        sources = {next(iter(s.values()))["name"] for s in container["envFrom"]}
        assert sources == {"benthic-config"}, f"{where}: no Secret as environment variables"
        _check_secret_files(
            where, pod, container, SECRET_KEYS | ({ARCHIVE_DSN} if service in ARCHIVE_CLIENTS else set())
        )
        postgres_client = labels.get("benthic.io/postgres-client") == "true"
        assert postgres_client == (service in ARCHIVE_CLIENTS), f"{where}: PostgreSQL client label"
        pod_name = [e for e in container["env"] if e["name"] == "POD_NAME"]
        assert pod_name and pod_name[0]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name", where
        pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
        pause = float(pre_stop[1]) if pre_stop[0] == "sleep" else 0.0
        needed = pause + UVICORN_GRACEFUL_S + float(config["BENTHIC_DRAIN_TIMEOUT_S"])
        assert pod["terminationGracePeriodSeconds"] > needed, f"{where}: grace period must exceed {needed}s"
        assert labels.get("benthic.io/redis-client") == "true", where
        strategy = deployment["spec"]["strategy"]
        assert strategy["rollingUpdate"]["maxUnavailable"] == 0, where
    assert len(images) == 1, "one image runs every service"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_one_pod_disruption_budget_per_deployment(overlay: str) -> None:
    objects = render(overlay)
    budgets = list(by_kind(objects, "PodDisruptionBudget").values())
    for name, deployment in by_kind(objects, "Deployment").items():
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        covering = [b for b in budgets if _matches(b["spec"]["selector"], labels)]
        assert len(covering) == 1, f"{overlay}: {name} has {len(covering)} PDBs"
        spec = covering[0]["spec"]
        replicas = deployment["spec"]["replicas"]
        if "maxUnavailable" in spec:
            assert spec["maxUnavailable"] >= 1, f"{name}: a PDB allowing no disruption blocks every drain"
        else:
            assert spec["minAvailable"] < replicas, f"{name}: a PDB allowing no disruption blocks every drain"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_services_and_service_monitor_reach_the_pods(overlay: str) -> None:
    objects = render(overlay)
    services = by_kind(objects, "Service")
    deployments = by_kind(objects, "Deployment")
    monitor = by_kind(objects, "ServiceMonitor")["benthic"]
    scraped = {
        n for n, s in services.items() if _matches(monitor["spec"]["selector"], s["metadata"]["labels"])
    }
    assert scraped == set(deployments), f"{overlay}: the ServiceMonitor scrapes {scraped}"
    assert monitor["spec"]["endpoints"][0]["port"] == "http"
    assert monitor["spec"]["endpoints"][0]["path"] == "/metrics"
    for name, deployment in deployments.items():
        service = services[name]  # job label = Service name = the job the alerts and dashboards select on
        assert _matches(
            {"matchLabels": service["spec"]["selector"]}, deployment["spec"]["template"]["metadata"]["labels"]
        )
        assert [p["name"] for p in service["spec"]["ports"]] == ["http"]
        assert service["spec"]["ports"][0]["targetPort"] == "http"


@cache
def _routes() -> dict[str, list[str]]:
    """The HTTP routes each service serves, read from the apps themselves (built, not started)."""
    from benthic.runtime.config import from_env
    from services.command.app import create_app as command_app
    from services.matchmaker.app import create_app as matchmaker_app
    from services.notifier.app import create_app as notifier_app
    from services.projection.app import create_app as projection_app

    settings = from_env({})
    with warnings.catch_warnings():  # the apps' own deprecation warnings are not this test's concern
        warnings.simplefilter("ignore")
        return {
            "benthic-command": [r.path for r in command_app(settings).routes],
            "benthic-projection": [r.path for r in projection_app(settings).routes],
            "benthic-notifier": [r.path for r in notifier_app(settings).routes],
            "benthic-matchmaker": [r.path for r in matchmaker_app(settings).routes],
        }


def _ingress_backend(objects: list[dict[str, Any]], path: str) -> str:
    """How ingress-nginx routes `path` with use-regex: ^-anchored, case-insensitive, longest path first;
    an Ingress with a denylist of every address answers 403 ("denied")."""
    locations = []
    for ingress in by_kind(objects, "Ingress").values():
        annotations = ingress["metadata"].get("annotations", {})
        assert annotations.get("nginx.ingress.kubernetes.io/use-regex") == "true"
        denied = annotations.get("nginx.ingress.kubernetes.io/denylist-source-range", "").startswith(
            "0.0.0.0/0"
        )
        for rule in ingress["spec"]["rules"]:
            for entry in rule["http"]["paths"]:
                locations.append((entry["path"], "denied" if denied else entry["backend"]["service"]["name"]))
    for regex, backend in sorted(locations, key=lambda item: len(item[0]), reverse=True):
        if re.match("^" + regex, path, flags=re.IGNORECASE):
            return backend
    return "404"


# Paths the ingress must route to one service, written out: what a client calls (static files, a path below a
# declared one included), checked beside the routes the apps declare.
CLIENT_PATHS = {
    "/games/g-123/token": "benthic-command",
    "/games/g-123/ops/audit": "benthic-command",
    "/games/g-123/ops/revoke": "benthic-command",
    "/players/me/seats": "benthic-command",
    "/players/p-1/ops/revoke": "benthic-command",
    "/.well-known/jwks.json": "benthic-command",
    "/dev/token": "benthic-command",
    "/app/js/main.js": "benthic-projection",
    "/client-config": "benthic-projection",
    "/players/me/seats/extra": "benthic-projection",
    "/games/g-123/seats/1/view": "benthic-projection",
    "/players/p-1/webhook": "benthic-notifier",
    "/players/me/webhook": "benthic-notifier",
    "/ops/webhooks/dead-letters": "benthic-notifier",
    "/ops/webhooks/dead-letters/1700000000000-0/redrive": "benthic-notifier",
    "/players/p-1/webhook/extra": "benthic-projection",
    "/matchmaking/tickets/t_0123456789abcdef0123": "benthic-matchmaker",
    "/players/me/blocks/p-1": "benthic-matchmaker",
    "/invitations/i_0123456789abcdef0123/accept": "benthic-matchmaker",
    "/players/me/tickets/extra": "benthic-projection",
}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_ingress_sends_writes_to_command_reads_to_projection_and_webhooks_to_the_notifier(overlay: str) -> None:
    objects = render(overlay)
    hosts = {r["host"] for i in by_kind(objects, "Ingress").values() for r in i["spec"]["rules"]}
    assert len(hosts) == 1, f"{overlay}: one host for every path, {hosts}"
    internal = ("/healthz", "/readyz", "/metrics", "/schema")
    for backend, routes in _routes().items():
        for route in routes:
            path = re.sub(r"\{(\w+):int\}", "2", re.sub(r"\{(\w+)(:str)?\}", "g-123", route))
            expected = "denied" if route.startswith(internal) else backend
            assert _ingress_backend(objects, path) == expected, f"{overlay}: {path} ({route})"
        assert (
            _ingress_backend(objects, "/games/commands") == "benthic-projection"
        )  # a game called "commands"
    for path, backend in CLIENT_PATHS.items():
        assert _ingress_backend(objects, path) == backend, f"{overlay}: {path}"


# The Redis StatefulSets and who may reach each: the port, and the pods of each peer allowed in.
REDIS_PARTS = {"benthic-redis": ("redis", 6379), "benthic-sentinel": ("sentinel", 26379)}
CLIENT_PEER = {"podSelector": {"matchLabels": {"benthic.io/redis-client": "true"}}}
KEDA_PEER = {
    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "keda"}},
    "podSelector": {"matchLabels": {"app": "keda-operator"}},
}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_only_the_services_reach_redis_and_everything_else_is_denied(overlay: str) -> None:
    """Redis (6379) and its Sentinels (26379) each accept exactly: the six services, KEDA's operator, the
    Redis pods (replication, start.sh) and the Sentinels (monitoring, failover, votes); nothing else."""
    objects = render(overlay)
    policies = by_kind(objects, "NetworkPolicy")
    deny = policies["benthic-default-deny-ingress"]["spec"]
    assert deny["podSelector"] == {} and deny["policyTypes"] == ["Ingress"] and not deny.get("ingress")
    clients = {
        n
        for n, d in by_kind(objects, "Deployment").items()
        if d["spec"]["template"]["metadata"]["labels"].get("benthic.io/redis-client") == "true"
    }
    assert clients == {f"benthic-{s}" for s in SERVICES}
    stateful = by_kind(objects, "StatefulSet")
    if "benthic-redis" not in stateful:
        assert not set(REDIS_PARTS) & set(policies), "a Redis policy without a Redis"
        assert "benthic-sentinel" not in stateful
        return
    pods = {name: stateful[name]["spec"]["template"]["metadata"]["labels"] for name in REDIS_PARTS}
    for name, (_component, port) in REDIS_PARTS.items():
        policy = policies[name]["spec"]
        assert policy["policyTypes"] == ["Ingress"], name
        # The policy guards exactly its own pods.
        assert {n for n, labels in pods.items() if _matches(policy["podSelector"], labels)} == {name}, name
        (rule,) = policy["ingress"]
        assert rule["ports"] == [{"protocol": "TCP", "port": port}], name
        peers = [p for p in rule["from"] if p not in (CLIENT_PEER, KEDA_PEER)]
        assert CLIENT_PEER in rule["from"] and KEDA_PEER in rule["from"], name
        # Every other peer is a pod selector of this namespace that selects Redis or Sentinel pods only.
        reached = set()
        for peer in peers:
            assert set(peer) == {"podSelector"}, f"{name}: {peer}"
            selected = {n for n, labels in pods.items() if _matches(peer["podSelector"], labels)}
            others = [
                o["metadata"]["name"]
                for o in objects
                if o["kind"] in ("Deployment", "StatefulSet")
                and o["metadata"]["name"] not in REDIS_PARTS
                and _matches(peer["podSelector"], o["spec"]["template"]["metadata"]["labels"])
            ]
            assert selected and not others, f"{name}: {peer} selects {selected} and {others}"
            reached |= selected
        assert reached == set(REDIS_PARTS), f"{name}: Redis and Sentinel pods must reach it, not only {reached}"
    # No other pod of the namespace carries the client label (Redis and the Sentinels do not).
    others = [
        o
        for o in objects
        if o["kind"] in ("StatefulSet", "Deployment") and o["metadata"]["name"] not in clients
    ]
    assert all(
        o["spec"]["template"]["metadata"]["labels"].get("benthic.io/redis-client") != "true" for o in others
    )


def _conf(text: str) -> dict[str, str]:
    """A redis.conf / sentinel.conf as {directive: value} (comments and blank lines skipped; a `sentinel`
    directive keyed by its first two words, e.g. "sentinel monitor")."""
    conf = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split(" ")
        if words[0] == "sentinel":
            conf[" ".join(words[:2])] = " ".join(words[2:])
        else:
            conf[words[0]] = " ".join(words[1:])
    return conf


def _anti_affinity(pod: dict[str, Any], labels: dict[str, str]) -> set[str]:
    """The topology keys over which the pod prefers (or requires) not to share with its own kind."""
    anti = pod.get("affinity", {}).get("podAntiAffinity", {})
    terms = [t["podAffinityTerm"] for t in anti.get("preferredDuringSchedulingIgnoredDuringExecution", [])]
    terms += anti.get("requiredDuringSchedulingIgnoredDuringExecution", [])
    return {t["topologyKey"] for t in terms if _matches(t["labelSelector"], labels)}


def _check_stateful_part(overlay: str, objects: list[dict[str, Any]], name: str, port: int) -> dict[str, Any]:
    """Three hardened pods behind a headless Service that publishes their names before they are ready, spread
    over nodes and zones, one at a time disrupted, started by start.sh of the ConfigMap benthic-redis."""
    stateful = by_kind(objects, "StatefulSet")[name]
    pod = stateful["spec"]["template"]["spec"]
    labels = stateful["spec"]["template"]["metadata"]["labels"]
    (container,) = pod["containers"]
    where = f"{overlay}: {name}"
    assert stateful["spec"]["replicas"] == 3, where
    _check_container_security(where, pod, container)
    assert container["ports"][0]["containerPort"] == port, where
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert container[probe]["exec"]["command"][0] == "redis-cli", f"{where}: {probe}"
        assert container[probe]["exec"]["command"][-1] == "ping", f"{where}: {probe}"
    assert container["command"] == ["sh", "/etc/redis/start.sh"], where
    config = next(m for m in container["volumeMounts"] if m["mountPath"] == "/etc/redis")
    (volume,) = [v for v in pod["volumes"] if v["name"] == config["name"]]
    assert volume["configMap"]["name"] == "benthic-redis" and config["readOnly"] is True, where
    assert {m["mountPath"] for m in container["volumeMounts"]} >= {"/tmp"}, f"{where}: start.sh writes its conf"
    env = {e["name"]: e for e in container["env"]}
    assert env["POD_NAMESPACE"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.namespace", where
    assert _anti_affinity(pod, labels) >= {"kubernetes.io/hostname", "topology.kubernetes.io/zone"}, where
    service = by_kind(objects, "Service")[stateful["spec"]["serviceName"]]
    assert service["spec"]["clusterIP"] == "None" and service["spec"]["publishNotReadyAddresses"] is True, where
    assert _matches({"matchLabels": service["spec"]["selector"]}, labels), where
    budgets = [b for b in by_kind(objects, "PodDisruptionBudget").values() if _matches(b["spec"]["selector"], labels)]
    assert [b["spec"].get("maxUnavailable") for b in budgets] == [1], f"{where}: one PDB, one pod at a time"
    return stateful


@pytest.mark.parametrize("overlay", ["base", "overlays/dev"])
def test_redis_is_a_primary_two_replicas_and_three_sentinels(overlay: str) -> None:
    objects = render(overlay)
    redis = _check_stateful_part(overlay, objects, "benthic-redis", 6379)
    sentinel = _check_stateful_part(overlay, objects, "benthic-sentinel", 26379)
    container = redis["spec"]["template"]["spec"]["containers"][0]
    assert container["args"] == ["redis"] and sentinel["spec"]["template"]["spec"]["containers"][0]["args"] == [
        "sentinel"
    ]
    assert container["lifecycle"]["preStop"]["exec"]["command"] == ["sh", "/etc/redis/start.sh", "prestop"]
    (claim,) = redis["spec"]["volumeClaimTemplates"]
    assert claim["metadata"]["name"] == "data" and claim["spec"]["resources"]["requests"]["storage"]
    assert {"name": "data", "mountPath": "/data"} in container["volumeMounts"]
    data = by_kind(objects, "ConfigMap")["benthic-redis"]["data"]
    conf = _conf(data["redis.conf"])
    assert conf["appendonly"] == "yes" and conf["appendfsync"] == "everysec"
    assert conf["maxmemory-policy"] == "noeviction" and conf["dir"] == "/data"
    # An isolated primary stops taking writes within 10 s (bounded split brain; docs/OPERATIONS.md).
    assert conf["min-replicas-to-write"] == "1" and conf["min-replicas-max-lag"] == "10"
    limit = _bytes(container["resources"]["limits"]["memory"])
    assert 0 < _bytes(conf["maxmemory"]) <= 0.8 * limit, "maxmemory must leave room below the container limit"
    assert "replicaof" not in conf, "start.sh decides who replicates whom"
    sentinel_conf = _conf(data["sentinel.conf"])
    master, host, port, quorum = sentinel_conf["sentinel monitor"].split(" ")
    assert (host, port, quorum) == ("@PRIMARY@", "@PORT@", "2"), "start.sh fills in the primary; quorum 2 of 3"
    assert sentinel_conf["sentinel down-after-milliseconds"] == f"{master} 5000"
    assert sentinel_conf["sentinel failover-timeout"] == f"{master} 60000"
    assert sentinel_conf["sentinel resolve-hostnames"] == "yes" == sentinel_conf["sentinel announce-hostnames"]
    # The services (and KEDA) ask exactly these three Sentinels, by their stable names, for this master.
    config = _config(objects)
    assert config["BENTHIC_REDIS_SENTINEL_MASTER"] == master
    names = [
        f"{sentinel['metadata']['name']}-{i}.{sentinel['spec']['serviceName']}.{sentinel['metadata']['namespace']}"
        f".svc.cluster.local:26379"
        for i in range(sentinel["spec"]["replicas"])
    ]
    assert config["BENTHIC_REDIS_SENTINELS"].split(",") == names
    assert "REDIS_ADDRESS" not in config, "KEDA asks the Sentinels too; a single address would name any pod"


def _bytes(quantity: str) -> float:
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "kb": 1e3, "mb": 2**20, "gb": 2**30}
    match = re.fullmatch(r"(\d+)([A-Za-z]*)", quantity)
    assert match, quantity
    return int(match.group(1)) * units.get(match.group(2), 1)


@pytest.mark.parametrize("overlay", ["base", "overlays/dev"])
def test_postgres_is_a_hardened_stateful_set_only_the_archive_clients_reach(overlay: str) -> None:
    objects = render(overlay)
    postgres = by_kind(objects, "StatefulSet")["benthic-postgres"]
    pod = postgres["spec"]["template"]["spec"]
    labels = postgres["spec"]["template"]["metadata"]["labels"]
    (container,) = pod["containers"]
    _check_container_security(f"{overlay}: postgres", pod, container)
    image, _, tag = container["image"].partition(":")
    assert image == "postgres" and re.fullmatch(r"\d+\.\d+-alpine", tag), f"official image, pinned: {tag}"
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert container[probe]["exec"]["command"][0] == "pg_isready", probe
    env = {e["name"]: e for e in container["env"]}
    assert "POSTGRES_PASSWORD" not in env, "the password is a file of the Secret, not a variable"
    (volume,) = [v for v in pod["volumes"] if "secret" in v]
    mount = next(m for m in container["volumeMounts"] if m["name"] == volume["name"])
    assert mount["readOnly"] is True
    assert env["POSTGRES_PASSWORD_FILE"]["value"] == f"{mount['mountPath']}/POSTGRES_PASSWORD"
    (claim,) = postgres["spec"]["volumeClaimTemplates"]
    data = next(m for m in container["volumeMounts"] if m["name"] == claim["metadata"]["name"])
    assert env["PGDATA"]["value"].startswith(data["mountPath"] + "/"), "PGDATA below the volume's root"
    assert claim["spec"]["resources"]["requests"]["storage"]
    assert {m["mountPath"] for m in container["volumeMounts"]} >= {"/var/run/postgresql", "/tmp"}
    service = by_kind(objects, "Service")[postgres["spec"]["serviceName"]]
    assert _matches({"matchLabels": service["spec"]["selector"]}, labels)
    assert service["spec"]["ports"][0]["port"] == 5432
    # Only command, projection and archiver pods reach it, on 5432.
    policy = by_kind(objects, "NetworkPolicy")["benthic-postgres"]["spec"]
    assert _matches(policy["podSelector"], labels) and policy["policyTypes"] == ["Ingress"]
    (rule,) = policy["ingress"]
    assert rule["ports"] == [{"protocol": "TCP", "port": 5432}]
    assert rule["from"] == [{"podSelector": {"matchLabels": {"benthic.io/postgres-client": "true"}}}]
    clients = {
        o["metadata"]["name"]
        for o in objects
        if o["kind"] in ("Deployment", "StatefulSet")
        and o["spec"]["template"]["metadata"]["labels"].get("benthic.io/postgres-client") == "true"
    }
    assert clients == {f"benthic-{s}" for s in ARCHIVE_CLIENTS}


def test_dev_archive_dsn_names_the_in_cluster_postgres_with_its_password() -> None:
    objects = render("overlays/dev")
    secrets = by_kind(objects, "Secret")
    dsn = urlsplit(secrets[SECRET]["stringData"][ARCHIVE_DSN])
    postgres = by_kind(objects, "StatefulSet")["benthic-postgres"]
    env = {e["name"]: e.get("value") for e in postgres["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert dsn.scheme == "postgresql" and dsn.hostname == postgres["spec"]["serviceName"] and dsn.port == 5432
    assert dsn.username == env["POSTGRES_USER"] and dsn.path == f"/{env['POSTGRES_DB']}"
    assert dsn.password == secrets["benthic-postgres"]["stringData"]["POSTGRES_PASSWORD"] != ""


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_service_ports_are_open_to_prometheus_and_only_the_public_ones_to_the_ingress(overlay: str) -> None:
    objects = render(overlay)
    policies = by_kind(objects, "NetworkPolicy")
    for service, port in SERVICES.items():
        labels = by_kind(objects, "Deployment")[f"benthic-{service}"]["spec"]["template"]["metadata"][
            "labels"
        ]
        allowed: set[str] = set()
        for policy in policies.values():
            spec = policy["spec"]
            if not _matches(spec["podSelector"], labels):
                continue
            for rule in spec.get("ingress", []):
                if {"protocol": "TCP", "port": port} not in rule.get("ports", []):
                    continue
                for peer in rule["from"]:
                    allowed.add(
                        peer.get("namespaceSelector", {})
                        .get("matchLabels", {})
                        .get("kubernetes.io/metadata.name", "?")
                    )
        public = service in ("command", "projection", "notifier", "matchmaker")
        assert allowed == ({"ingress-nginx", "monitoring"} if public else {"monitoring"}), (service, allowed)


@pytest.mark.parametrize("overlay", ["base", "overlays/prod", "overlays/prod-cluster"])
def test_autoscaling_hpa_for_command_and_keda_lag_scaling_for_the_consumers(overlay: str) -> None:
    objects = render(overlay)
    config = _config(objects)
    partitions = int(config["BENTHIC_PARTITIONS"])
    (hpa,) = by_kind(objects, "HorizontalPodAutoscaler").values()
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "benthic-command",
    }
    assert 1 < hpa["spec"]["minReplicas"] < hpa["spec"]["maxReplicas"]
    scaled = by_kind(objects, "ScaledObject")
    assert set(scaled) == {"benthic-projection", "benthic-scoring", "benthic-bots"}, (
        "the archiver is not scaled"
    )
    # How KEDA reaches Redis follows how the services do: a cluster, the Sentinels, or one address.
    if config.get("BENTHIC_REDIS_CLUSTER") == "true":
        kind, addressing = "redis-cluster-streams", {"addressesFromEnv": "REDIS_ADDRESS"}
    elif config.get("BENTHIC_REDIS_SENTINELS"):
        kind = "redis-sentinel-streams"
        addressing = {
            "addressesFromEnv": "BENTHIC_REDIS_SENTINELS",
            "sentinelMasterFromEnv": "BENTHIC_REDIS_SENTINEL_MASTER",
        }
    else:
        kind, addressing = "redis-streams", {"addressFromEnv": "REDIS_ADDRESS"}
    (authentication,) = by_kind(objects, "TriggerAuthentication").values()
    assert authentication["spec"]["secretTargetRef"] == [
        {"parameter": "password", "name": SECRET, "key": "REDIS_PASSWORD"}
    ], "KEDA reads the Redis password from the Secret, not from a container's environment"
    for name, obj in scaled.items():
        group = name.removeprefix("benthic-")
        spec = obj["spec"]
        assert (
            spec["scaleTargetRef"]["name"] == name
            and spec["scaleTargetRef"].get("kind", "Deployment") == "Deployment"
        )
        assert 1 <= spec["minReplicaCount"] < spec["maxReplicaCount"], "consumers never scale to zero"
        streams = set()
        for trigger in spec["triggers"]:
            if trigger["type"] == "cpu":
                continue
            assert trigger["type"] == kind, overlay
            metadata = trigger["metadata"]
            assert metadata["consumerGroup"] == group
            assert int(metadata["lagCount"]) > 0, "scale on consumer-group lag"
            addresses = {k: v for k, v in metadata.items() if k.endswith("FromEnv")}
            assert addresses == addressing, f"{name}: {addresses}"
            for variable in addresses.values():
                assert config.get(variable), f"{name}: {variable} must be set in the ConfigMap (KEDA reads env)"
            assert "passwordFromEnv" not in metadata and "password" not in metadata
            assert trigger["authenticationRef"] == {"name": authentication["metadata"]["name"]}
            streams.add(metadata["stream"])
        # scoring reads only the lifecycle feeds, the bots only the managed feeds (the games they look after)
        feed = {"scoring": "lifecycle", "bots": "managed"}.get(group, "feed")
        assert streams == {f"{{p{p}}}:{feed}" for p in range(partitions)}, (
            f"{name}: one trigger per partition feed"
        )
        deployment = by_kind(objects, "Deployment")[name]
        assert deployment["spec"]["replicas"] >= spec["minReplicaCount"]


def test_dev_is_one_replica_each_without_autoscaling() -> None:
    objects = render("overlays/dev")
    assert {d["spec"]["replicas"] for d in by_kind(objects, "Deployment").values()} == {1}
    assert not by_kind(objects, "ScaledObject") and not by_kind(objects, "HorizontalPodAutoscaler")
    assert _config(objects)["BENTHIC_ENVIRONMENT"] == "dev"
    assert {"benthic-redis", "benthic-sentinel", "benthic-postgres"} <= set(by_kind(objects, "StatefulSet"))


@pytest.mark.parametrize("overlay", ["overlays/prod", "overlays/prod-cluster"])
def test_prod_uses_an_external_redis_more_replicas_and_no_secret_values(overlay: str) -> None:
    objects = render(overlay)
    config = _config(objects)
    assert config["BENTHIC_ENVIRONMENT"] == "production"
    assert not by_kind(objects, "Secret"), "the prod Secret is created out of band, never rendered"
    assert not by_kind(objects, "StatefulSet"), "prod uses an external or cluster Redis"
    assert "benthic-redis" not in config["REDIS_ADDRESS"]
    assert config["BENTHIC_REDIS_SENTINELS"] == "", "no in-cluster Sentinels in prod (and none with a cluster)"
    assert all(d["spec"]["replicas"] >= 2 for d in by_kind(objects, "Deployment").values())
    images = {
        c["image"]
        for d in by_kind(objects, "Deployment").values()
        for c in d["spec"]["template"]["spec"]["containers"]
    }
    assert all(":" in i and not i.endswith(":latest") for i in images), images
    assert config["BENTHIC_REDIS_CLUSTER"] == ("true" if overlay.endswith("cluster") else "false")
    assert "benthic-postgres" not in by_kind(objects, "NetworkPolicy"), "prod uses an external PostgreSQL"
    assert images == {f"ghcr.io/benthic/benthic:0.1.0@{PLACEHOLDER_DIGEST}"}, "pinned by digest"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_redis_settings_are_ones_the_services_accept(overlay: str) -> None:
    """The Redis settings of every overlay pass the services' own start-up check; production acknowledges a
    write only once a replica has it, and only there."""
    from benthic.runtime.config import from_env
    from benthic.runtime.redisconn import check_redis_settings

    config = _config(render(overlay))
    check_redis_settings(from_env(config))  # SystemExit on a combination that cannot work
    production = overlay.startswith("overlays/prod")
    assert int(config["BENTHIC_REDIS_ACK_REPLICAS"]) == (1 if production else 0), overlay
    assert int(config["BENTHIC_REDIS_ACK_TIMEOUT_MS"]) == 1000, overlay
    sentinels = by_kind(render(overlay), "StatefulSet").get("benthic-sentinel")
    assert bool(config["BENTHIC_REDIS_SENTINELS"]) == (sentinels is not None), (
        f"{overlay}: Sentinels named exactly where the overlay runs them"
    )


def test_the_placeholder_digest_is_documented() -> None:
    """The prod overlay's digest is a placeholder the release pipeline replaces: the runbook says so."""
    kustomization = yaml.safe_load((K8S / "overlays/prod/kustomization.yaml").read_text())
    (image,) = kustomization["images"]
    assert image["digest"] == PLACEHOLDER_DIGEST
    assert re.fullmatch(r"sha256:0{64}", PLACEHOLDER_DIGEST), "obviously not a real image"
    operations = (ROOT / "docs/OPERATIONS.md").read_text()
    assert PLACEHOLDER_DIGEST in operations and "release pipeline" in operations


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_config_map_sets_only_real_settings(overlay: str) -> None:
    fields = {f"BENTHIC_{f.name.upper()}" for f in msgspec.structs.fields(Settings)}
    config = _config(render(overlay))
    unknown = {k for k in config if k.startswith("BENTHIC_")} - fields
    assert not unknown, f"{overlay}: the services read no {unknown}"
    assert config["BENTHIC_HOST"] == "0.0.0.0", "listen beyond the pod's loopback"
    assert {k for k in config if not k.startswith("BENTHIC_")} <= {"REDIS_ADDRESS"}
    assert not (SECRET_KEYS | {ARCHIVE_DSN}) & set(config), "secrets belong in the Secret"


# Settings the base ConfigMap writes out, with the services' defaults.
CONFIG_MAP_DEFAULTS = {
    "BENTHIC_ARCHIVE_AFTER_S": 300,
    "BENTHIC_ARCHIVE_RETENTION_DAYS": 0,
    "BENTHIC_ARCHIVE_BATCH": 20,
    "BENTHIC_ARCHIVE_POOL": 4,
    "BENTHIC_LIVE_STREAMS_MAX": 10000,
    "BENTHIC_REDIS_POOL": 64,
    "BENTHIC_REDIS_POOL_TIMEOUT_S": 2,
    "BENTHIC_HTTP_SERVER": "uvicorn",
    "BENTHIC_INTEGRATION_STREAM": "benthic:integration",
    "BENTHIC_INTEGRATION_MAXLEN": 100000,
    # identity
    "BENTHIC_SEAT_TOKEN_TTL_S": 3600,
    "BENTHIC_LIMIT_CREATE_PER_PLAYER": "10/minute",
    "BENTHIC_LIMIT_CREATE_PER_IP": "60/minute",
    "BENTHIC_LIMIT_JOIN_PER_PLAYER": "30/minute",
    "BENTHIC_LIMIT_JOIN_PER_IP": "120/minute",
    "BENTHIC_LIMIT_COMMAND_PER_PLAYER": "30/second",
    "BENTHIC_LIMIT_COMMAND_PER_IP": "300/second",
    "BENTHIC_LIMIT_TOKEN_PER_PLAYER": "60/minute",
    "BENTHIC_LIMIT_TOKEN_PER_IP": "300/minute",
    "BENTHIC_MAX_OPEN_GAMES_PER_PLAYER": 20,
    # durability; the prod overlays raise BENTHIC_REDIS_ACK_REPLICAS to 1
    "BENTHIC_REDIS_SENTINEL_MASTER": "benthic",
    "BENTHIC_REDIS_ACK_REPLICAS": 0,
    "BENTHIC_REDIS_ACK_TIMEOUT_MS": 1000,
    # webhooks (the notifier)
    "BENTHIC_WEBHOOK_MAX_ATTEMPTS": 8,
    "BENTHIC_WEBHOOK_RETRY_BASE_MS": 1000,
    "BENTHIC_WEBHOOK_RETRY_MAX_MS": 600000,
    "BENTHIC_WEBHOOK_TIMEOUT_S": 5,
    "BENTHIC_WEBHOOK_LEASE_S": 30,
    "BENTHIC_WEBHOOK_QUEUE_MAX": 100000,
    "BENTHIC_WEBHOOK_DEAD_LETTER_MAX": 10000,
    "BENTHIC_WEBHOOK_CONCURRENCY": 16,
    "BENTHIC_WEBHOOK_POLL_MS": 200,
    # matchmaking (the matchmaker)
    "BENTHIC_MATCH_WAVE_S": 10,
    "BENTHIC_MATCH_TICKETS_PER_PLAYER": 3,
    "BENTHIC_MATCH_TICKET_TTL_S": 604800,
    "BENTHIC_MATCH_KEEP_S": 604800,
    "BENTHIC_INVITATION_TTL_S": 259200,
    "BENTHIC_VACATION_INITIAL_DAYS": 10,
    "BENTHIC_VACATION_CAP_DAYS": 30,
}


def _same(value: object, default: int | str) -> bool:
    return float(value) == default if isinstance(default, int) else value == default  # type: ignore[arg-type]


def test_config_map_carries_the_new_settings_at_their_defaults() -> None:
    config = _config(render("base"))
    defaults = Settings()
    for name, default in CONFIG_MAP_DEFAULTS.items():
        assert _same(config[name], default), name
        field = name.removeprefix("BENTHIC_").lower()
        assert _same(getattr(defaults, field), default), f"{name}: benthic.runtime.config's default differs"


@pytest.mark.parametrize("overlay", ["overlays/prod", "overlays/prod-cluster"])
def test_prod_names_an_identity_provider(overlay: str) -> None:
    """Outside dev the services refuse to start without a JWKS, an issuer and an audience."""
    config = _config(render(overlay))
    assert urlsplit(config["BENTHIC_JWKS_URL"]).scheme == "https"
    assert config["BENTHIC_JWT_ISSUER"] and config["BENTHIC_JWT_AUDIENCE"]
    assert _config(render("overlays/dev"))["BENTHIC_JWKS_URL"] == "", "dev uses the development issuer"


def test_base_secret_is_a_template_that_fails_closed() -> None:
    secret = by_kind(render("base"), "Secret")["benthic-secrets"]
    data = secret["stringData"]
    assert data["BENTHIC_TOKEN_KEYS"] == "" and data["BENTHIC_OPERATOR_TOKEN"] == ""
    assert data[ARCHIVE_DSN] == "", "no archive DSN in the template"
    assert by_kind(render("base"), "Secret")["benthic-postgres"]["stringData"]["POSTGRES_PASSWORD"] == ""
    from benthic.runtime.config import check_production, from_env

    with pytest.raises(SystemExit):
        check_production(from_env({**data, "BENTHIC_ENVIRONMENT": "production"}))


def test_yaml_sources_pass_yamllint() -> None:
    from tests.ops.opstools import ROOT, run, tool

    result = run([tool("yamllint"), "-c", "deploy/yamllint.yml", "deploy", "k8s"], cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
