"""Settings read from files (`<NAME>_FILE`, e.g. a mounted Kubernetes Secret) instead of the environment."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from benthic.runtime.config import Settings, from_env


def _file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_secrets_come_from_files_less_one_trailing_newline(tmp_path: Path) -> None:
    env = {
        "REDIS_URL_FILE": _file(tmp_path, "url", "redis://:pw@redis:6379/3\n"),
        "BENTHIC_TOKEN_KEYS_FILE": _file(tmp_path, "keys", "k2:new-secret,k1:old-secret\r\n"),
        "BENTHIC_OPERATOR_TOKEN_FILE": _file(tmp_path, "operator", "an-operator-token-of-length\n\n"),
        "BENTHIC_ENVIRONMENT": "production",
    }
    settings = from_env(env)
    assert settings.redis_url == "redis://:pw@redis:6379/3"
    assert settings.token_keys == (("k2", b"new-secret"), ("k1", b"old-secret"))
    assert settings.operator_token == "an-operator-token-of-length\n", "only one trailing newline goes"
    assert "BENTHIC_TOKEN_KEYS" not in env, "the caller's mapping is not changed"


def test_a_file_value_is_typed_like_an_environment_value(tmp_path: Path) -> None:
    settings = from_env(
        {
            "BENTHIC_PARTITIONS_FILE": _file(tmp_path, "p", "4\n"),
            "BENTHIC_REDIS_CLUSTER_FILE": _file(tmp_path, "c", "true"),
            "BENTHIC_CLAIM_INTERVAL_S_FILE": _file(tmp_path, "i", "0.5\n"),
        }
    )
    assert (settings.partitions, settings.redis_cluster, settings.claim_interval_s) == (4, True, 0.5)


def _sample(default: object) -> str:
    if isinstance(default, bool):
        return "true"
    if isinstance(default, int):
        return "7"
    if isinstance(default, float):
        return "2.5"
    if isinstance(default, str):
        return "value-from-a-file"
    return "k9:a-secret"


@pytest.mark.parametrize("field", [f.name for f in msgspec.structs.fields(Settings)])
def test_every_setting_can_come_from_a_file(tmp_path: Path, field: str) -> None:
    """From a file or from the environment, one value gives the same settings (or the same error)."""
    name = f"BENTHIC_{field.upper()}"
    value = _sample(getattr(Settings(), field))

    def outcome(env: dict[str, str]) -> object:
        try:
            return from_env({"POD_NAME": "pod-0", **env})
        except (ValueError, SystemExit) as error:
            return (type(error), str(error))

    direct = outcome({name: value})
    assert outcome({f"{name}_FILE": _file(tmp_path, field, value + "\n")}) == direct
    if not isinstance(direct, tuple) and name != "BENTHIC_REDIS_URL":
        assert getattr(direct, field) != getattr(from_env({"POD_NAME": "pod-0"}), field), "the value was used"


def test_value_and_file_together_refuse_to_start(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="REDIS_URL and REDIS_URL_FILE are both set"):
        from_env({"REDIS_URL": "redis://a:1/0", "REDIS_URL_FILE": _file(tmp_path, "url", "redis://b:1/0")})
    with pytest.raises(SystemExit, match="BENTHIC_OPERATOR_TOKEN and BENTHIC_OPERATOR_TOKEN_FILE"):
        from_env({"BENTHIC_OPERATOR_TOKEN": "", "BENTHIC_OPERATOR_TOKEN_FILE": _file(tmp_path, "t", "x")})


def test_an_unreadable_file_refuses_to_start(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-file")
    with pytest.raises(SystemExit, match="BENTHIC_TOKEN_KEYS_FILE: cannot read .*no-such-file"):
        from_env({"BENTHIC_TOKEN_KEYS_FILE": missing})
    binary = tmp_path / "binary"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(SystemExit, match="BENTHIC_TOKEN_KEYS_FILE: cannot read"):
        from_env({"BENTHIC_TOKEN_KEYS_FILE": str(binary)})


def test_other_file_variables_are_not_settings(tmp_path: Path) -> None:
    """Only settings' names are followed: an unknown NAME_FILE is ignored, not read."""
    settings = from_env(
        {"BENTHIC_NO_SUCH_SETTING_FILE": str(tmp_path / "absent"), "KUBECONFIG_FILE": str(tmp_path / "absent")}
    )
    assert settings == from_env({"POD_NAME": settings.consumer_name})
