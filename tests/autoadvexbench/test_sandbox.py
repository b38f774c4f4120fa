import os

import pytest

from icml25.autoadvexbench import Limits, Sandbox, SandboxError

FAST = Limits(cpu_seconds=1, wall_seconds=3.0, memory_bytes=2**30)


@pytest.fixture
def box(tmp_path):
    (tmp_path / "outside.txt").write_text("the secret")
    folder = tmp_path / "task"
    folder.mkdir()
    return Sandbox(folder, FAST, preload=())


def run(box, code, name="probe.py"):
    box.write_file(name, code)
    return box.run_python(name)


def test_file_tools_stay_in_the_folder(box):
    box.write_file("sub/a.txt", "hello")
    assert box.read_file("sub/a.txt") == "hello"
    os.symlink(box.folder.parent / "outside.txt", box.folder / "link.txt")
    for path in ("../outside.txt", str(box.folder.parent / "outside.txt"), "link.txt", ""):
        with pytest.raises(SandboxError):
            box.read_file(path)
    with pytest.raises(SandboxError):
        box.write_file("../planted.txt", "x")
    assert not (box.folder.parent / "planted.txt").exists()
    assert (box.folder.parent / "outside.txt").exists()


def test_script_escapes_are_refused_and_recorded(box):
    result = run(
        box,
        "import os, socket, subprocess\n"
        "for f in (lambda: open('../outside.txt').read(),\n"
        "          lambda: open('../planted.txt', 'w'),\n"
        "          lambda: socket.socket(),\n"
        "          lambda: subprocess.run(['true']),\n"
        "          lambda: os.remove('../outside.txt'),\n"
        "          lambda: os.listdir('..')):\n"
        "    try:\n        print('ESCAPED', f())\n"
        "    except PermissionError as e:\n        print('refused')\n"
        "open('inside.txt', 'w').write('ok')\n",
    )
    assert result.returncode == 0 and "ESCAPED" not in result.stdout
    events = [b["event"] for b in result.blocked]
    assert events == [
        "open-read-outside",
        "open-write-outside",
        "socket.__new__",
        "subprocess.Popen",
        "os.remove-write-outside",
        "os.listdir-read-outside",
    ]
    assert result.stopped and (box.folder / "inside.txt").read_text() == "ok"
    assert not (box.folder.parent / "planted.txt").exists()
    assert (box.folder.parent / "outside.txt").exists()


def test_the_unguarded_control_does_escape(box):
    control = Sandbox(box.folder, FAST, preload=(), guarded=False)
    result = run(control, "print(open('../outside.txt').read())\n")
    assert "the secret" in result.stdout and not result.blocked


def test_time_and_memory_limits_stop_the_run(box):
    busy = run(box, "while True:\n    pass\n")
    assert busy.cpu_killed or busy.timed_out
    sleep = run(box, "import time\ntime.sleep(60)\n")
    assert sleep.timed_out and sleep.seconds < 30
    memory = run(box, "b = bytearray(4 * 2**30)\n")
    assert memory.memory_error and memory.returncode != 0
    after = run(box, "print('alive')\n")
    assert after.returncode == 0 and after.stdout.strip() == "alive" and not after.stopped


def test_the_child_gets_no_key_and_one_thread(box, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    result = run(
        box, "import os\nprint(os.environ.get('OPENAI_API_KEY'), os.environ['OMP_NUM_THREADS'])\n"
    )
    assert result.stdout.split() == ["None", "1"]


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="folder"):
        Sandbox(tmp_path / "missing")
    with pytest.raises(ValueError, match="cpu_seconds"):
        Limits(cpu_seconds=0)
