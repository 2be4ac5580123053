"""A run's key (``runner/journal.KeyRef``): where it lives, what the kit creates, what it refuses.

The key seals journal entries and shards; these tests pin where it is kept (outside both), that
the kit creates only private state-dir keys, that a key file is trusted only when private and
the running user's own, and that an unusable key file is one line and exit 2."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agentic.cli import main
from agentic.contract.canonical import fingerprint
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonObject
from agentic.fixture.loader import Fixture
from agentic.lane.journal import KEY_FILE_ENV, KeyRef

RUN: JsonObject = {"kit": "0", "tasks": ["t1"]}


def _key_file(path: Path, secret: bytes, mode: int = 0o600) -> Path:
    path.write_bytes(secret)
    path.chmod(mode)
    return path


def test_a_state_dir_key_is_private_random_and_named_by_the_run(tmp_path: Path) -> None:
    ref = KeyRef.of(RUN, None, {"XDG_STATE_HOME": str(tmp_path)})
    key = ref.load_or_create()
    assert ref.path == tmp_path / "agentic" / "keys" / fingerprint(RUN)
    assert stat.S_IMODE(ref.path.stat().st_mode) == 0o600
    assert len(key.secret) == 32 and ref.path.read_bytes() == key.secret
    assert sorted(p.name for p in ref.path.parent.iterdir()) == [ref.path.name]  # no temp left


def test_a_second_run_of_one_identity_finds_its_key(tmp_path: Path) -> None:
    environ = {"XDG_STATE_HOME": str(tmp_path)}
    first = KeyRef.of(RUN, None, environ).load_or_create()
    assert KeyRef.of(RUN, None, environ).load_or_create() == first
    assert KeyRef.of({**RUN, "kit": "1"}, None, environ).load_or_create() != first


def test_a_whole_runs_journal_has_its_own_disposable_key(tmp_path: Path) -> None:
    run_key = KeyRef.of(RUN, None, {"XDG_STATE_HOME": str(tmp_path)})
    journal = run_key.for_journal(tmp_path / ".agentic-journal-out")
    assert journal.path.parent == run_key.path.parent
    assert journal.path.name.startswith("journal-") and journal.disposable
    assert journal != run_key.for_journal(tmp_path / ".agentic-journal-other")
    given = KeyRef(tmp_path / "run.key", given=True)
    assert given.for_journal(tmp_path / ".agentic-journal-out") == given  # never removed


def test_without_xdg_state_home_keys_live_under_the_home(tmp_path: Path) -> None:
    for environ in ({"HOME": str(tmp_path)}, {"HOME": str(tmp_path), "XDG_STATE_HOME": "rel"}):
        ref = KeyRef.of(RUN, None, environ)
        assert ref.path.parent == tmp_path / ".local" / "state" / "agentic" / "keys"


def test_a_given_key_file_wins_and_is_never_created(tmp_path: Path) -> None:
    named = tmp_path / "from-env.key"
    given = tmp_path / "given.key"
    assert KeyRef.of(RUN, None, {KEY_FILE_ENV: str(named)}) == KeyRef(named, given=True)
    assert KeyRef.of(RUN, given, {KEY_FILE_ENV: str(named)}) == KeyRef(given, given=True)
    with pytest.raises(ContractError) as refused:
        KeyRef(given, given=True).load_or_create()
    assert (refused.value.code, refused.value.message) == (
        "run_key_missing",
        f"{given}: no such key file",
    )
    assert not given.exists()


def test_a_key_file_others_may_read_is_refused(tmp_path: Path) -> None:
    path = _key_file(tmp_path / "run.key", os.urandom(32), mode=0o644)
    with pytest.raises(ContractError) as refused:
        KeyRef(path, given=True).load()
    assert refused.value.code == "invalid_run_key"
    assert refused.value.message == (
        f"{path}: others than its owner may use it (mode 0o644; chmod 600)"
    )


OTHER_UID = 12345


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="only root can give a file to another account (os.chown)",
)
def test_a_key_file_owned_by_another_account_is_refused_naming_its_owner(tmp_path: Path) -> None:
    path = _key_file(tmp_path / "run.key", os.urandom(32))
    os.chown(path, OTHER_UID, -1)
    with pytest.raises(ContractError) as refused:
        KeyRef(path, given=True).load()
    assert refused.value.code == "invalid_run_key"
    assert refused.value.message == (
        f"{path}: owned by uid {OTHER_UID}, not by the running user (uid {os.geteuid()}); "
        "chown it or use a key of your own"
    )


def test_the_running_users_own_private_key_file_is_accepted(tmp_path: Path) -> None:
    secret = os.urandom(32)
    path = _key_file(tmp_path / "run.key", secret)
    assert path.stat().st_uid == os.geteuid()
    assert KeyRef(path, given=True).load().secret == secret


@pytest.mark.parametrize("size", [31, 4097])
def test_a_key_of_the_wrong_size_is_refused(size: int, tmp_path: Path) -> None:
    path = _key_file(tmp_path / "run.key", b"k" * size)
    with pytest.raises(ContractError) as refused:
        KeyRef(path, given=True).load()
    assert refused.value.code == "invalid_run_key"
    assert refused.value.message == f"{path}: a key has 32 to 4096 bytes"


def test_the_key_never_shows_in_its_repr_and_its_id_does_not_reveal_it(tmp_path: Path) -> None:
    secret = b"s" * 40
    key = KeyRef(_key_file(tmp_path / "run.key", secret), given=True).load()
    assert secret.decode() not in repr(key)
    assert len(key.key_id) == 16 and key.key_id not in secret.hex()


def test_a_seal_verifies_only_its_own_domain_and_document(tmp_path: Path) -> None:
    key = KeyRef(_key_file(tmp_path / "run.key", os.urandom(32)), given=True).load()
    mac = key.seal("agentic-shard", {"a": 1})
    assert key.opens("agentic-shard", {"a": 1}, mac)
    assert not key.opens("agentic-journal-pair", {"a": 1}, mac)
    assert not key.opens("agentic-shard", {"a": 2}, mac)
    assert not key.opens("agentic-shard", {"a": 1}, None)


@pytest.mark.parametrize("shard", [("--shard", "1/2"), ()], ids=["shard", "whole"])
def test_a_run_with_a_missing_key_file_is_refused_before_it_runs_and_leaves_nothing(
    tiny_fixture: Fixture,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    shard: tuple[str, ...],
) -> None:
    missing = tmp_path / "no.key"
    monkeypatch.setenv(KEY_FILE_ENV, str(missing))
    lane = ["run", "--fixture", str(tiny_fixture.root), "--adapter", "lexical", "--promote", "none"]
    code = main([*lane, "--quiet", *shard, "--out", str(tmp_path / "out")])
    assert code == 2
    assert capsys.readouterr().err == f"agentic: run_key_missing: {missing}: no such key file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no shard, no journal
