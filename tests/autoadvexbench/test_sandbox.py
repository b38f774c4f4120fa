import os
import subprocess
import sys

import pytest

from icml25.autoadvexbench import ESCAPES, Limits, Sandbox, SandboxError
from icml25.autoadvexbench.sandbox import REFUSALS_KEPT

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
        "          lambda: os.listdir('..'),\n"
        "          lambda: os.kill(os.getppid(), 0)):\n"
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
        "os.kill",
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


def kernel_barriers(result):
    applied = [b["detail"] for b in result.barriers if b["event"] == "barrier"]
    if len(applied) < 2:
        pytest.skip(f"this kernel lacks Landlock or seccomp: {result.barriers}")
    return applied


def test_kernel_barriers_stop_what_the_audit_hook_misses(box):
    """A spoofed audit call starts a process, readline reads a file in C: neither raises an
    audit event; Landlock and seccomp refuse them. Without the guard both succeed."""
    (box.folder.parent / "outside.txt").write_text("the secret\n")
    for name in ("subprocess_unaudited", "read_outside_native"):
        code = ESCAPES[name].replace("../outside/secret.txt", "../outside.txt")
        guarded = run(box, code)
        kernel_barriers(guarded)
        assert "the secret" not in guarded.stdout and guarded.returncode != 0
        assert "PermissionError" in guarded.stderr and guarded.refusals == 0
        control = run(Sandbox(box.folder, FAST, preload=(), guarded=False), code)
        assert "the secret" in control.stdout


def test_native_torch_reads_stop_at_the_folder(tmp_path):
    """torch.from_file opens the file in C++ (no audit event): Landlock refuses it."""
    (tmp_path / "outside.txt").write_text("the secret")
    folder = tmp_path / "task"
    folder.mkdir()
    (folder / "inside.txt").write_text("inside")
    box = Sandbox(folder, Limits(cpu_seconds=30, wall_seconds=60), preload=("torch",))
    code = (
        "import torch\n"
        "def read(path, n):\n    t = torch.from_file(path, size=n, dtype=torch.uint8)\n"
        "    return bytes(t.tolist()).decode()\n"
        "print(read('inside.txt', 6))\n"
        "try:\n    print(read('../outside.txt', 10))\n"
        "except RuntimeError as e:\n    print('refused', e)\n"
    )
    result = run(box, code)
    kernel_barriers(result)
    assert result.stdout.startswith("inside\nrefused") and "the secret" not in result.stdout


HARNESS = """
import sys
from icml25.autoadvexbench import Limits, Sandbox
box = Sandbox(sys.argv[1], Limits(cpu_seconds=5, wall_seconds=20), preload=(),
              guarded=sys.argv[2] == "guarded")
box.write_file("env.py", "import os\\nprint(open(f'/proc/{os.getppid()}/environ').read())\\n")
result = box.run_python("env.py")
print(result.stdout, [b["event"] for b in result.blocked])
"""


def test_the_harness_key_does_not_leak_through_proc(box):
    """A harness started with OPENAI_API_KEY in its environment: the sandboxed script cannot
    read /proc/<harness>/environ; the unguarded control can."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-must-not-leak"}
    outputs = {}
    for mode in ("guarded", "control"):
        outputs[mode] = subprocess.run(
            [sys.executable, "-c", HARNESS, str(box.folder), mode],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
    assert "sk-must-not-leak" not in outputs["guarded"]
    assert "open-read-outside" in outputs["guarded"]
    assert "sk-must-not-leak" in outputs["control"]


def test_a_flood_of_refusals_neither_blocks_nor_is_lost(box):
    """2,000 refusals overflow a 64 KiB pipe: the parent drains it while the child runs."""
    result = run(
        box,
        "for i in range(2000):\n"
        "    try:\n        open('../outside.txt')\n"
        "    except PermissionError:\n        pass\n"
        "print('done')\n",
    )
    assert not result.timed_out and result.returncode == 0 and result.stdout.strip() == "done"
    assert result.refusals == 2000 and len(result.blocked) == REFUSALS_KEPT
    assert result.seconds < FAST.wall_seconds
