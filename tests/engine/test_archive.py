"""Loading bot programs: every accepted form, and every unsafe archive refused in one line."""

from __future__ import annotations

import io
import json
import os
import stat
import zipfile
from pathlib import Path

import pytest

from engine.archive import ProgramError, program_check, program_unpack

BOT = b"print('hi')\n"


def make_zip(path: Path, members: dict[str, bytes], modes: dict[str, int] | None = None,
             compression: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = compression
            if modes and name in modes:
                info.external_attr = modes[name] << 16
            archive.writestr(info, data)
    return path


def refused(source: Path, dest: Path) -> str:
    with pytest.raises(ProgramError) as caught:
        program_unpack(source, dest)
    message = str(caught.value)
    assert "\n" not in message and message
    return message


def test_a_single_python_file_becomes_bot_py(tmp_path: Path) -> None:
    source = tmp_path / "my_bot.py"
    source.write_bytes(BOT)

    program = program_unpack(source, tmp_path / "out")

    assert program.run == ("python3", "bot.py")
    assert (program.directory / "bot.py").read_bytes() == BOT


def test_a_zip_with_bot_py_at_its_root(tmp_path: Path) -> None:
    source = make_zip(tmp_path / "b.zip", {"bot.py": BOT, "lib/helper.py": b"X = 1\n"})

    program = program_unpack(source, tmp_path / "out")

    assert program.run == ("python3", "bot.py")
    assert (program.directory / "lib" / "helper.py").read_text() == "X = 1\n"


@pytest.mark.parametrize("run, files", [
    (["python3", "main.py"], {"main.py": BOT}),
    (["node", "bot.js"], {"bot.js": b"console.log(1)\n"}),
    (["./bin/bot", "--fast"], {"bin/bot": b"\x7fELF..."}),
])
def test_a_zip_with_a_manifest_runs_what_it_names(tmp_path: Path, run: list[str],
                                                  files: dict[str, bytes]) -> None:
    manifest = json.dumps({"run": run}).encode()
    source = make_zip(tmp_path / "b.zip", {"bot.json": manifest, **files})

    program = program_unpack(source, tmp_path / "out")

    assert program.run == tuple(run)
    if run[0].startswith("./"):
        assert os.access(program.directory / run[0], os.X_OK)


def test_unpacked_files_are_readable_by_others_and_not_writable_by_them(tmp_path: Path) -> None:
    source = make_zip(tmp_path / "b.zip", {"bot.py": BOT, "data/x.txt": b"x"},
                      modes={"bot.py": 0o100600})

    program = program_unpack(source, tmp_path / "out")

    for path in [program.directory, program.directory / "data", program.directory / "bot.py",
                 program.directory / "data" / "x.txt"]:
        mode = path.stat().st_mode
        assert mode & stat.S_IROTH and not mode & stat.S_IWOTH, path


def test_an_unpacked_folder_is_copied(tmp_path: Path) -> None:
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "bot.py").write_bytes(BOT)

    program = program_unpack(folder, tmp_path / "out")

    assert (program.directory / "bot.py").read_bytes() == BOT
    assert program.directory != folder


def test_program_check_reports_the_run_and_leaves_nothing_behind(tmp_path: Path) -> None:
    source = make_zip(tmp_path / "b.zip", {"bot.py": BOT})

    assert program_check(source).run == ("python3", "bot.py")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.zip"]


@pytest.mark.parametrize("name, reason", [
    ("/etc/cron.d/evil", "absolute path"),
    ("../escape.py", "'..'"),
    ("lib/../../escape.py", "'..'"),
    ("C:/windows.py", "absolute path"),
    ("lib\\evil.py", "unsafe file name"),
])
def test_paths_that_could_escape_are_refused(tmp_path: Path, name: str, reason: str) -> None:
    source = make_zip(tmp_path / "b.zip", {"bot.py": BOT, name: b"x"})

    assert reason in refused(source, tmp_path / "out")
    assert not (tmp_path / "escape.py").exists()


@pytest.mark.parametrize("mode, reason", [
    (stat.S_IFLNK | 0o777, "symbolic link"),
    (stat.S_IFCHR | 0o666, "special file"),
    (stat.S_IFBLK | 0o666, "special file"),
    (stat.S_IFIFO | 0o666, "special file"),
])
def test_links_and_special_files_are_refused(tmp_path: Path, mode: int, reason: str) -> None:
    source = make_zip(tmp_path / "b.zip", {"bot.py": BOT, "odd": b"/etc/passwd"},
                      modes={"odd": mode})

    assert reason in refused(source, tmp_path / "out")


def test_more_than_a_thousand_files_are_refused(tmp_path: Path) -> None:
    members = {f"f{i}.txt": b"" for i in range(1001)}
    source = make_zip(tmp_path / "b.zip", {"bot.py": BOT, **members})

    assert "more than 1000 files" in refused(source, tmp_path / "out")


def test_more_than_fifty_megabytes_unpacked_is_refused(tmp_path: Path) -> None:
    source = make_zip(tmp_path / "b.zip", {"bot.py": BOT, "zeros": bytes(51 << 20)})
    assert source.stat().st_size < 1 << 20  # a small archive: a zip bomb in miniature

    assert "more than 50 MB" in refused(source, tmp_path / "out")


def test_an_archive_over_ten_megabytes_is_refused(tmp_path: Path) -> None:
    source = make_zip(tmp_path / "b.zip", {"bot.py": BOT, "noise": os.urandom(11 << 20)},
                      compression=zipfile.ZIP_STORED)

    assert "larger than 10 MB" in refused(source, tmp_path / "out")


def test_a_python_file_over_ten_megabytes_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "big.py"
    source.write_bytes(b"#" * (11 << 20))

    assert "larger than 10 MB" in refused(source, tmp_path / "out")


def test_a_file_listed_twice_is_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", BOT)
        with pytest.warns(UserWarning):
            archive.writestr("bot.py", b"print('other')\n")
    (tmp_path / "b.zip").write_bytes(buffer.getvalue())

    assert "listed twice" in refused(tmp_path / "b.zip", tmp_path / "out")


def test_a_zip_without_bot_py_at_its_root_says_where_it_found_one(tmp_path: Path) -> None:
    source = make_zip(tmp_path / "b.zip", {"mybot/bot.py": BOT})

    message = refused(source, tmp_path / "out")

    assert "no bot.json or bot.py" in message and "mybot/bot.py" in message


@pytest.mark.parametrize("manifest, reason", [
    (b"{not json", "not valid JSON"),
    (b'{"run": "python3 bot.py"}', "non-empty list of strings"),
    (b'{"run": []}', "non-empty list of strings"),
    (b'{"run": ["bash", "-c", "curl evil"]}', "must start with python3, node or ./FILE"),
    (b'{"run": ["/usr/bin/python3", "bot.py"]}', "must start with python3, node or ./FILE"),
    (b'{"run": ["./missing"]}', "not a file in the program"),
    (b'{"run": ["./../../bin/sh"]}', "'..'"),
])
def test_bad_manifests_are_refused(tmp_path: Path, manifest: bytes, reason: str) -> None:
    source = make_zip(tmp_path / "b.zip", {"bot.json": manifest, "bot.py": BOT})

    assert reason in refused(source, tmp_path / "out")


def test_something_that_is_not_a_program_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "notes.txt"
    source.write_text("hello")

    assert ".py file, a .zip archive or a folder" in refused(source, tmp_path / "out")


def test_a_damaged_zip_is_refused(tmp_path: Path) -> None:
    source = make_zip(tmp_path / "b.zip", {"bot.py": BOT * 1000})
    data = bytearray(source.read_bytes())
    data[60:90] = bytes(30)  # inside the compressed data of bot.py
    source.write_bytes(bytes(data))

    assert "damaged" in refused(source, tmp_path / "out")


def test_a_folder_with_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "src"
    folder.mkdir()
    (folder / "bot.py").write_bytes(BOT)
    (folder / "secrets").symlink_to("/etc/passwd")

    assert "symbolic link" in refused(folder, tmp_path / "out")


def test_an_encrypted_member_is_refused(tmp_path: Path) -> None:
    source = make_zip(tmp_path / "b.zip", {"bot.py": BOT})
    data = bytearray(source.read_bytes())
    # The general purpose flag (bit 0: encrypted) sits at offset 6 of the local header and
    # at offset 8 of the central directory entry.
    central = data.rfind(b"PK\x01\x02")
    data[6] |= 1
    data[central + 8] |= 1
    source.write_bytes(bytes(data))

    assert "encrypted" in refused(source, tmp_path / "out")
