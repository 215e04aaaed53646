"""The container image and docker-compose, without a Docker daemon (there is none here): hadolint on the
Dockerfile plus checks of its stages, the wheel the build stage makes (built here from exactly the files
the image's build context lets in, and imported in isolation), the compose file against the Compose
Specification's JSON schema plus its policies, and Prometheus' compose configuration with promtool."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from benthic.runtime.config import Settings
from tests.ops.opstools import (
    ARCHIVE_CLIENTS,
    DEPLOY,
    ROOT,
    SERVICES,
    run,
    setting_names,
    tool,
)

DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "docker-compose.yml"


def _stages() -> list[list[str]]:
    """Dockerfile instructions (continuations joined, comments dropped), split by FROM."""
    lines, current = [], ""
    for raw in DOCKERFILE.read_text().splitlines():
        if raw.strip().startswith("#") and not current:
            continue
        current += raw.rstrip("\\").strip() + " "
        if not raw.endswith("\\"):
            if current.strip():
                lines.append(current.strip())
            current = ""
    stages: list[list[str]] = []
    for line in lines:
        if line.upper().startswith("FROM "):
            stages.append([])
        if stages:
            stages[-1].append(line)
    return stages


def test_hadolint_passes() -> None:
    result = run([tool("hadolint"), "--failure-threshold", "info", str(DOCKERFILE)])
    assert result.returncode == 0, result.stdout + result.stderr


def test_image_is_multi_stage_slim_non_root_with_the_serve_entrypoint() -> None:
    stages = _stages()
    assert len(stages) >= 2, "a build stage and a runtime stage"
    arguments = dict(re.findall(r"^ARG (\w+)=(\S+)", DOCKERFILE.read_text(), flags=re.MULTILINE))
    final = stages[-1]
    base = final[0].split()[1]
    base = re.sub(r"\$\{(\w+)\}", lambda m: arguments[m.group(1)], base)
    assert "slim" in base, f"final stage base {base} is not a slim image"
    text = "\n".join(final)
    assert not re.search(r"apt-get install|build-essential|gcc|pip install", text), (
        "no build tools in the final stage"
    )
    assert re.search(r"COPY --from=build /opt/benthic /opt/benthic", text)
    users = [line.split()[1] for line in final if line.startswith("USER ")]
    assert users and users[-1].split(":")[0] not in ("root", "0"), "the final stage runs as a non-root user"
    assert users[-1].split(":")[0].isdigit(), "a numeric uid, so runAsNonRoot can verify it"
    entrypoint = next(line for line in final if line.startswith("ENTRYPOINT "))
    assert json.loads(entrypoint.removeprefix("ENTRYPOINT ")) == ["benthic", "serve"]
    exposed = {int(p) for line in final if line.startswith("EXPOSE ") for p in line.split()[1:]}
    defaults = Settings()
    assert exposed == set(SERVICES.values())
    for service, port in SERVICES.items():  # where benthic.runtime.config has the port already, it agrees
        assert getattr(defaults, f"{service}_port", port) == port, service
    assert "BENTHIC_HOST=0.0.0.0" in text, "listen beyond the container's loopback"
    assert "BENTHIC_ENVIRONMENT=production" in text, "fail closed: production unless told otherwise"


def _context_files() -> list[Path]:
    """The files of the repository the build context sends, by deploy/Dockerfile.dockerignore."""
    patterns = [
        line.strip()
        for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    included = []
    for name in tracked:
        keep = True
        for pattern in patterns:
            negate = pattern.startswith("!")
            pattern = pattern.removeprefix("!").rstrip("/")
            hit = (
                fnmatch.fnmatch(name, pattern)
                or name.startswith(pattern + "/")
                or fnmatch.fnmatch(name, pattern.replace("**/", "*/"))
                or fnmatch.fnmatch(Path(name).name, pattern.removeprefix("**/"))
            )
            if hit:
                keep = negate
        if keep:
            included.append(Path(name))
    return included


def test_build_context_holds_what_the_dockerfile_copies_and_nothing_else() -> None:
    files = _context_files()
    tops = {f.parts[0] for f in files}
    assert tops == {"pyproject.toml", "shared", "services"}, tops
    copied = re.findall(r"^COPY (?!--from)(\S+)", DOCKERFILE.read_text(), flags=re.MULTILINE)
    for source in copied:
        assert any(str(f) == source.rstrip("/") or str(f).startswith(source) for f in files), source


def test_the_wheel_the_build_stage_makes_runs_on_its_own(tmp_path: Path) -> None:
    """`pip wheel .` over the build context, as the build stage does; the wheel, unpacked and imported
    ahead of the source tree, must carry the game content and the services."""
    context = tmp_path / "context"
    for name in _context_files():
        target = context / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((ROOT / name).read_bytes())
    result = run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "--wheel-dir",
            str(tmp_path / "dist"),
            str(context),
        ],
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (wheel,) = (tmp_path / "dist").glob("benthic-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = next(archive.read(n).decode() for n in names if n.endswith("entry_points.txt"))
        archive.extractall(tmp_path / "site")
    assert "benthic = benthic.cli:main" in entry_points
    assert any(n.startswith("services/command/") for n in names)
    content = {n for n in names if "/content/" in n or n.endswith(".lua")}
    source_content = {
        str(p.relative_to(ROOT / "shared"))
        for p in (ROOT / "shared").rglob("*")
        if p.suffix in (".json", ".lua") and "/content/" in str(p) or p.suffix == ".lua"
    }
    assert source_content <= content, f"data files missing from the wheel: {source_content - content}"
    probe = (
        "import benthic, services.command.app, services.projection.app, services.scoring.app;"
        "from benthic.rules import game_types; print(benthic.__file__); print(','.join(game_types()))"
    )
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    location, types = result.stdout.split()
    assert location.startswith(str(tmp_path / "site")), "imported the source tree, not the wheel"
    assert types, "no game type registered from the wheel"


def test_compose_file_matches_the_compose_specification() -> None:
    result = run([tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(COMPOSE)])
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_schema_check_rejects_mistakes(tmp_path: Path) -> None:
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(
        COMPOSE.read_text().replace(
            '    healthcheck:\n      test: ["CMD", "redis-cli"',
            '    healthchek:\n      test: ["CMD", "redis-cli"',
            1,
        )
    )
    assert "healthchek" in broken.read_text()
    result = run([tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(broken)])
    assert result.returncode != 0


def _compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def test_compose_runs_redis_with_aof_and_noeviction_and_the_services_hardened() -> None:
    compose = _compose()
    services = compose["services"]
    redis = " ".join(services["redis"]["command"])
    assert (
        "--appendonly yes" in redis and "--maxmemory-policy noeviction" in redis and "--maxmemory " in redis
    )
    assert any(v.endswith(":/data") for v in services["redis"]["volumes"])
    fields = setting_names() | {"POD_NAME"}
    for name in SERVICES:
        service = services[name]
        assert service["command"] == [name]
        assert service["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
        assert service["read_only"] is True and service["cap_drop"] == ["ALL"]
        assert "no-new-privileges:true" in service["security_opt"]
        assert service["depends_on"]["redis"]["condition"] == "service_healthy"
        if name in ARCHIVE_CLIENTS:
            assert service["depends_on"]["postgres"]["condition"] == "service_healthy", name
        assert f"{SERVICES[name]}/readyz" in " ".join(service["healthcheck"]["test"])
        assert set(service["environment"]) <= fields, set(service["environment"]) - fields
        assert service["environment"]["REDIS_URL"].startswith("redis://redis:6379")
        grace = float(service["stop_grace_period"].rstrip("s"))
        assert grace > 20 + float(service["environment"]["BENTHIC_DRAIN_TIMEOUT_S"])
    assert len({services[n]["image"] for n in SERVICES}) == 1, "one image"


def test_compose_runs_postgres_for_the_archive() -> None:
    services = _compose()["services"]
    postgres = services["postgres"]
    image, _, tag = postgres["image"].partition(":")
    assert image == "postgres" and re.fullmatch(r"\d+\.\d+-alpine", tag), "official image, pinned"
    assert any(v.endswith(":/var/lib/postgresql/data") for v in postgres["volumes"]), "data on a volume"
    assert "pg_isready" in postgres["healthcheck"]["test"]
    env = postgres["environment"]
    dsn = urlsplit(services["archiver"]["environment"]["BENTHIC_ARCHIVE_URL"])
    assert dsn.scheme == "postgresql" and dsn.hostname == "postgres" and dsn.port == 5432
    assert dsn.username == env["POSTGRES_USER"] and dsn.path == f"/{env['POSTGRES_DB']}"
    # The same interpolation on both sides (compose substitutes ${...}): the password can be set from outside.
    assert dsn.password == env["POSTGRES_PASSWORD"] and env["POSTGRES_PASSWORD"].startswith(
        "${POSTGRES_PASSWORD:-"
    )


def test_compose_mounts_exist_and_grafana_is_provisioned() -> None:
    compose = _compose()
    for name, service in compose["services"].items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"{name}: {source}"
    grafana = compose["services"]["grafana"]
    mounts = dict(v.split(":")[:2] for v in grafana["volumes"] if v.startswith("."))
    provider = yaml.safe_load((DEPLOY / "grafana/provisioning/dashboards/benthic.yml").read_text())
    dashboards_at = provider["providers"][0]["options"]["path"]
    assert mounts["./grafana/dashboards"] == dashboards_at
    assert mounts["./grafana/provisioning"] == "/etc/grafana/provisioning"
    datasource = yaml.safe_load((DEPLOY / "grafana/provisioning/datasources/prometheus.yml").read_text())
    assert datasource["datasources"][0]["url"] == "http://prometheus:9090"


def test_compose_prometheus_config_passes_promtool_and_scrapes_every_service(tmp_path: Path) -> None:
    config = yaml.safe_load((DEPLOY / "prometheus/prometheus.yml").read_text())
    compose = _compose()
    prometheus = compose["services"]["prometheus"]
    mounts = dict(v.split(":")[:2] for v in prometheus["volumes"] if v.startswith("."))
    assert mounts["./prometheus/rules"] == "/etc/prometheus/rules"
    assert config["rule_files"] == ["/etc/prometheus/rules/*.yml"]
    jobs = {j["job_name"]: j["static_configs"][0]["targets"] for j in config["scrape_configs"]}
    for name, port in SERVICES.items():
        assert jobs[f"benthic-{name}"] == [f"{name}:{port}"], "job names are what the alerts select on"
    config["rule_files"] = [str(DEPLOY / "prometheus/rules/*.yml")]
    local = tmp_path / "prometheus.yml"
    local.write_text(yaml.safe_dump(config))
    result = run([tool("promtool"), "check", "config", str(local)])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout + result.stderr


@pytest.mark.parametrize("path", sorted(DEPLOY.glob("grafana/dashboards/*.json")), ids=lambda p: p.name)
def test_dashboard_json_is_parseable(path: Path) -> None:
    json.loads(path.read_text())
