"""The attacks of the sandbox's security review, each tried as sandboxed code (or a racing
process beside the harness) would, against the barriers that must stop it."""

import errno
import os
import stat
import subprocess
import sys
import threading
import time

import pytest

from icml25.autoadvexbench import Limits, Sandbox, SandboxError, SandboxUnavailable, sandbox_kernel
from icml25.autoadvexbench import sandbox as sandbox_module
from icml25.autoadvexbench.agent import DISARM

FAST = Limits(cpu_seconds=2, wall_seconds=20.0, memory_bytes=2**30)
CONFINED = sandbox_kernel.support()["landlock"] > 0 and sandbox_kernel.support()["seccomp"]
needs_kernel = pytest.mark.skipif(not CONFINED, reason="this kernel lacks Landlock or seccomp")


@pytest.fixture
def box(tmp_path):
    (tmp_path / "outside.txt").write_text("the secret")
    folder = tmp_path / "task"
    folder.mkdir()
    return Sandbox(folder, FAST, preload=(), allow_unconfined=not CONFINED)


def run(box, code, name="probe.py"):
    box.write_file(name, code)
    return box.run_python(name)


FLIPPER = """
import os, sys
folder, target = sys.argv[1], sys.argv[2]
os.chdir(folder)
open('plain', 'w').write('inside')
while True:
    os.symlink(target, 'link.tmp')
    os.replace('link.tmp', 'x')
    open('file.tmp', 'w').write('inside')
    os.replace('file.tmp', 'x')
"""


def test_file_tools_never_follow_a_racing_symlink(box):
    """A process swaps ``x`` between a regular file and a link to a file outside, as fast as
    it can; 3,000 reads and 3,000 writes by the harness never reach the outside file."""
    outside = box.folder.parent / "outside.txt"
    flipper = subprocess.Popen([sys.executable, "-c", FLIPPER, str(box.folder), str(outside)])
    try:
        time.sleep(0.3)
        outcomes = {"read": 0, "refused": 0}
        for _ in range(3000):
            try:
                text = box.read_file("x")
                assert "secret" not in text
                outcomes["read"] += 1
            except (SandboxError, FileNotFoundError):
                outcomes["refused"] += 1
            try:
                box.write_file("x", "overwritten")
            except (SandboxError, FileNotFoundError):
                pass
    finally:
        flipper.kill()
        flipper.wait()
    assert outside.read_text() == "the secret"
    assert outcomes["read"] > 0 and outcomes["refused"] > 0  # both states were met


def test_file_tools_refuse_fifos_devices_and_hard_links(box):
    """A FIFO would hang a read for ever; a hard link reaches a file outside the folder."""
    os.mkfifo(box.folder / "pipe")
    outcome = []

    def read():
        try:
            box.read_file("pipe")
            outcome.append("read")
        except SandboxError as error:
            outcome.append(str(error))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(5.0)
    assert outcome and "not a regular file" in outcome[0]
    with pytest.raises(SandboxError, match="regular file"):
        box.write_file("pipe", "x")
    os.link(box.folder.parent / "outside.txt", box.folder / "hard")
    with pytest.raises(SandboxError, match="hard links"):
        box.read_file("hard")
    with pytest.raises(SandboxError, match="hard links"):
        box.write_file("hard", "overwritten")
    assert (box.folder.parent / "outside.txt").read_text() == "the secret"
    if os.geteuid() == 0:  # a device node (the sandboxed code has no CAP_MKNOD to make one)
        os.mknod(box.folder / "null", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        with pytest.raises(SandboxError, match="regular file"):
            box.read_file("null")
    os.symlink("/dev/zero", box.folder / "zero")
    with pytest.raises(SandboxError, match="symbolic link"):
        box.read_file("zero")


def test_a_symlinked_parent_folder_is_not_followed(box):
    os.symlink(box.folder.parent, box.folder / "up")
    with pytest.raises(SandboxError, match="symbolic link"):
        box.read_file("up/outside.txt")
    with pytest.raises(SandboxError, match="symbolic link"):
        box.write_file("up/planted.txt", "x")
    assert not (box.folder.parent / "planted.txt").exists()


def test_the_harness_environment_is_not_readable_through_its_file_tools(box, monkeypatch):
    """Where OPENAI_API_KEY lives when a model is used: a link to the harness's own environ."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    os.symlink("/proc/self/environ", box.folder / "env")
    for path in ("env", "/proc/self/environ"):
        with pytest.raises(SandboxError):
            box.read_file(path)


@needs_kernel
def test_a_disarmed_audit_hook_leaves_the_kernel_barriers(box):
    result = run(
        box,
        DISARM + "import os\n"
        "try:\n    print(open('../outside.txt').read())\n"
        "except PermissionError as e:\n    print('errno', e.errno, e)\n"
        "try:\n    os.link('../outside.txt', 'hard')\n    print('linked')\n"
        "except OSError as e:\n    print('link refused', e.errno)\n",
    )
    assert "link refused" in result.stdout and not (box.folder / "hard").exists()
    assert "the secret" not in result.stdout
    assert result.refusals == 0  # the hook was disarmed: it recorded nothing
    assert f"errno {errno.EACCES}" in result.stdout  # Landlock refused it, not the hook


ORPHAN = DISARM + (
    "import os, time\n"
    "if os.fork() == 0:\n"
    "    for fd in range(64):  # stdout and stderr too: the harness sees no open pipe\n"
    "        try:\n            os.close(fd)\n        except OSError:\n            pass\n"
    "    try:\n        os.setsid()\n    except OSError:\n        pass\n"
    "    for i in range(400):\n"
    "        open('beat.txt', 'w').write(str(i))\n"
    "        time.sleep(0.05)\n"
    "    os._exit(0)\n"
    "time.sleep(0.3)\n"
    "print('parent done')\n"
)


def _beats_after(box, result):
    assert "parent done" in result.stdout, result.stderr
    first = (box.folder / "beat.txt").read_text()
    time.sleep(0.5)
    return first, (box.folder / "beat.txt").read_text()


@needs_kernel
def test_children_that_detach_die_with_the_run(box):
    result = run(box, ORPHAN)
    first, later = _beats_after(box, result)
    assert first == later  # nothing writes the heartbeat any more


@needs_kernel
def test_children_die_with_the_run_without_namespaces_or_cgroups(box, monkeypatch):
    """The fallback: no namespace, no control group; the session kill still ends the child
    (seccomp refuses setsid, so it cannot leave the session)."""
    monkeypatch.setattr(sandbox_module, "namespace_prefix", lambda: ())
    monkeypatch.setattr(sandbox_module, "TreeGroup", _NoGroup)
    result = run(box, ORPHAN)
    first, later = _beats_after(box, result)
    assert first == later and result.leftovers_killed >= 1


class _NoGroup:
    def __init__(self, memory_bytes, processes):
        self.dirs, self.limits = {}, []

    def join(self):
        pass

    def cpu_seconds(self):
        return None

    def oom_kills(self):
        return 0

    def members(self):
        return set()

    def kill(self):
        pass

    def close(self):
        pass


FORK_EACH = DISARM + (
    "import os, sys, time\n"
    "children = []\n"
    "for _ in range(4):\n"
    "    pid = os.fork()\n"
    "    if pid == 0:\n"
    "        WORK\n"
    "        os._exit(0)\n"
    "    children.append(pid)\n"
    "for pid in children:\n    os.waitpid(pid, 0)\n"
    "time.sleep(1.0)\n"
    "print('done')\n"
)


@needs_kernel
@pytest.mark.parametrize("fallback", [False, True])
def test_memory_is_limited_for_the_whole_tree(tmp_path, monkeypatch, fallback):
    """Four processes of 400 MB each under a 1 GiB limit: each is under its own address-space
    limit, the tree is not. The CPU limit is far above what the allocations cost (on a slow
    machine the page faults of 1.6 GB took over 2 s of CPU), so only memory can stop the run."""
    if fallback:
        monkeypatch.setattr(sandbox_module, "TreeGroup", _NoGroup)
    limits = Limits(cpu_seconds=60, wall_seconds=40.0, memory_bytes=2**30)
    box = Sandbox(tmp_path, limits, preload=(), allow_unconfined=not CONFINED)
    work = "block = b'x' * (400 * 2**20); time.sleep(3)"
    result = run(box, FORK_EACH.replace("WORK", work))
    assert not result.cpu_killed and not result.timed_out
    assert result.memory_killed and "done" not in result.stdout


@needs_kernel
@pytest.mark.parametrize("fallback", [False, True])
def test_cpu_time_is_limited_for_the_whole_tree(box, monkeypatch, fallback):
    """Four processes of 1.5 s of CPU each under a 2 s limit."""
    if fallback:
        monkeypatch.setattr(sandbox_module, "TreeGroup", _NoGroup)
    work = "end = time.process_time() + 1.5\n        while time.process_time() < end: pass"
    result = run(box, FORK_EACH.replace("WORK", work))
    assert result.cpu_killed and "done" not in result.stdout


HARNESS = """
import resource, sys
from icml25.autoadvexbench import Limits, Sandbox
box = Sandbox(sys.argv[1], Limits(cpu_seconds=30, wall_seconds=60), preload=(),
              allow_unconfined=True)
box.write_file("flood.py", "import sys\\nfor _ in range(1024):\\n"
               "    sys.stdout.buffer.write(b'x' * 2**20)\\n")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = box.run_python("flood.py")
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(result.output_bytes, len(result.stdout), (after - before) * 1024)
"""


def test_a_flood_of_output_is_capped(box):
    """1 GiB written to stdout: the harness keeps the first bytes and counts the rest."""
    done = subprocess.run(
        [sys.executable, "-c", HARNESS, str(box.folder)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    written, kept, growth = (int(v) for v in done.stdout.split())
    assert written == 2**30
    assert kept <= sandbox_module.OUTPUT_LIMIT + 100
    assert growth < 64 * 2**20  # the harness grew by less than 64 MiB


def test_the_folder_has_a_quota(tmp_path):
    folder = tmp_path / "task"
    folder.mkdir()
    limits = Limits(cpu_seconds=20, wall_seconds=30, file_bytes=32 * 2**20, folder_bytes=2**27)
    box = Sandbox(folder, limits, preload=(), allow_unconfined=not CONFINED)
    result = run(
        box,
        "import time\nfor i in range(12):\n"
        "    open(f'fill{i}.bin', 'wb').write(b'x' * (30 * 2**20))\n"
        "    time.sleep(0.1)\n"
        "print('filled')\n",
    )
    assert result.quota_killed and "filled" not in result.stdout
    assert sum(p.stat().st_size for p in folder.glob("fill*.bin")) < 2**28


@needs_kernel
def test_the_record_of_barriers_cannot_be_forged(box):
    forged = '{"event": "barrier", "detail": "forged"}\\n{"event": "exit", "status": 0}\\n'
    result = run(
        box,
        "import os\n"
        "for fd in range(3, 64):\n"
        f"    try:\n        os.write(fd, b'{forged}')\n"
        "    except OSError:\n        pass\n"
        "raise SystemExit(3)\n",
    )
    assert all(b["detail"] != "forged" for b in result.barriers)
    assert result.returncode == 3  # the init's report, not the forged one


@needs_kernel
def test_the_run_has_no_capabilities(box):
    result = run(
        box,
        DISARM + "import ctypes, platform\n"
        "status = open('/proc/self/status').read()\n"
        "print(status.split('CapEff:')[1].split()[0])\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "number = {'x86_64': 169, 'aarch64': 142}[platform.machine()]\n"
        "print(libc.syscall(number, 0, 0, 0, 0), ctypes.get_errno())\n",  # magic 0: no reboot
    )
    lines = result.stdout.split("\n")
    assert int(lines[0], 16) == 0
    assert lines[1].split() == ["-1", str(errno.EPERM)]


def test_model_code_does_not_run_unconfined_unless_asked(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox_kernel, "support", lambda: {"landlock": 0, "seccomp": False})
    with pytest.raises(SandboxUnavailable, match="allow_unconfined=True"):
        Sandbox(tmp_path)
    assert Sandbox(tmp_path, allow_unconfined=True).allow_unconfined
    assert not Sandbox(tmp_path, guarded=False).guarded  # the control runs no model code
