"""schemathesis against the running platform (both APIs, every check), with more cases than the bounded run of
``make test`` (tests/e2e/test_openapi.py); prints the cases generated and the failures per API as JSON."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from benthic.local.localplatform import LocalPlatform
from benthic.local.signals import stop_servers_on_signals
from tests.apifuzz import ENV, run


def main() -> None:
    stop_servers_on_signals()  # SIGTERM too stops the servers this bench starts
    parser = argparse.ArgumentParser()
    parser.add_argument("--examples", type=int, default=100, help="cases per operation and phase")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="benthic-api-fuzz-") as workdir, LocalPlatform(env=ENV) as platform:
        results = run(platform, Path(workdir), args.examples, args.seed)
    out = {"max_examples": args.examples}
    for result in results:
        out[result.api] = {"generated": result.generated, "failures": result.failures, "errored": result.errored,
                           "seconds": round(result.seconds, 1), "exit_code": result.returncode,
                           "seed": result.report.get("seed")}
        if result.returncode != 0:
            sys.stderr.write(result.output[-6000:])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
