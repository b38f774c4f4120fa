"""Kernel barriers of the sandbox (standard library only: imported by ``sandbox_guard.py``,
which runs by path): Landlock for the file system, signals and other processes' memory, and a
seccomp filter for processes and sockets. Both are Linux features an unprivileged process can
apply to itself; they hold for native code (torch, numpy, a process started without the audit
hook), unlike the PEP 578 hook.

- ``landlock(folder, read_roots)``: from now on this process and its children may read, write,
  create and remove files only under ``folder``, read (and execute) files only under
  ``read_roots``, and nothing else (give ``/proc/<own pid>``, never ``/proc``: measured on
  Linux 6.18 as root, Landlock's ptrace rule did not stop reading ``/proc/<parent>/environ``
  when ``/proc`` was a read root). From ABI 4 it refuses TCP connect and bind, from ABI 6
  signals to processes outside the sandbox and their abstract unix sockets. Must be called
  while the process has one thread (it restricts the calling thread and its future children).
- ``drop_capabilities()``: empties the bounding set and the permitted, effective and
  inheritable sets (``prctl(PR_CAPBSET_DROP)``, ``capset``), so a run started as root keeps
  uid 0 but no privilege: ``reboot``, ``mount``, raw sockets, ``CAP_DAC_OVERRIDE`` reads and
  ptrace of any process are refused by the kernel's own permission checks.
- ``seccomp()``: every thread (TSYNC) gets ``EPERM`` from a deny-list: ``execve``/``execveat``
  (no new program, so no process outside the hook), ``socket``/``socketpair`` (no network),
  ``ptrace``, ``process_vm_readv``/``writev``, ``io_uring_setup`` (which would bypass the
  filter), ``setsid`` (every process stays in the run's session, which the harness kills), and
  the administrative calls (``reboot``, ``mount`` and the new mount API, ``unshare``,
  ``setns``, module and ``kexec`` loading, ``bpf``, ``perf_event_open``, keyrings, ``swapon``,
  ``mknod``, ``userfaultfd``, file handles). A deny-list, not an allow-list: the calls numpy
  and torch make differ between versions and processors, and an allow-list that missed one
  would fail an honest attack with ``EPERM``; calls not listed are open, and the other barriers
  (Landlock, no capabilities, namespaces) are what confine them.

Each returns a short description of what it applied, or raises ``OSError`` when the kernel
does not offer it (then the sandbox runs with the audit hook only, and says so).
"""

import ctypes
import os
import platform

# Landlock (linux/landlock.h)
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
FS_ALL_V1 = (1 << 13) - 1  # execute .. make_sym
FS_REFER, FS_TRUNCATE, FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
FS_FILE_ONLY = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
NET_ALL = 1 | 2  # bind_tcp, connect_tcp (ABI 4)
SCOPE_ALL = 1 | 2  # abstract unix sockets, signals (ABI 6)
RULE_PATH_BENEATH = 1
READ_RIGHTS = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
# x86_64 / aarch64 syscall numbers: landlock create, add_rule, restrict_self; the denied ones
SYSCALLS = {
    "x86_64": {
        "arch": 0xC000003E,
        "landlock": (444, 445, 446),
        "seccomp": 317,
        # execve, execveat, socket, socketpair, ptrace, process_vm_readv/writev, io_uring_setup,
        # setsid, reboot, mount, umount2, pivot_root, chroot, unshare, setns, kexec_load,
        # kexec_file_load, init/finit/delete_module, bpf, perf_event_open, add_key,
        # request_key, keyctl, swapon, swapoff, mknod, mknodat, userfaultfd,
        # name_to_handle_at, open_by_handle_at, open_tree, move_mount, fsopen, fsmount
        "denied": (59, 322, 41, 53, 101, 310, 311, 425, 112, 169, 165, 166, 155, 161, 272, 308)
        + (246, 320, 175, 313, 176, 321, 298, 248, 249, 250, 167, 168, 133, 259, 323, 303, 304)
        + (428, 429, 430, 432),
        "capset": 126,
    },
    "aarch64": {
        "arch": 0xC00000B7,
        "landlock": (444, 445, 446),
        "seccomp": 277,
        # the same calls in the same order (aarch64 has no mknod)
        "denied": (221, 281, 198, 199, 117, 270, 271, 425, 157, 142, 40, 39, 41, 51, 97, 268)
        + (104, 294, 105, 273, 106, 280, 241, 217, 218, 219, 224, 225, 33, 282, 264, 265)
        + (428, 429, 430, 432),
        "capset": 91,
    },
}
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
CAPABILITY_VERSION_3 = 0x20080522


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


class _Filter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_Filter))]


def _arch():
    table = SYSCALLS.get(platform.machine())
    if table is None:
        raise OSError(f"no syscall table for {platform.machine()}")
    return table


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _check(result, what):
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
    return result


def _no_new_privs(libc):
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(NO_NEW_PRIVS)")


def landlock(folder, read_roots, devices=("/dev/null",)):
    """Restrict this process (and its future children) to ``folder`` (everything) and
    ``read_roots`` (read, list, execute); ``devices`` (files) may also be written."""
    libc, (create, add_rule, restrict) = _libc(), _arch()["landlock"]
    abi = _check(libc.syscall(create, None, ctypes.c_size_t(0), ctypes.c_uint32(1)), "landlock")
    fs = FS_ALL_V1 | (FS_REFER if abi >= 2 else 0) | (FS_TRUNCATE if abi >= 3 else 0)
    fs |= FS_IOCTL_DEV if abi >= 5 else 0
    attr = _RulesetAttr(fs, NET_ALL if abi >= 4 else 0, SCOPE_ALL if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = _check(
        libc.syscall(create, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)),
        "landlock_create_ruleset",
    )
    rules = [(folder, fs)] + [(root, READ_RIGHTS) for root in read_roots]
    rules += [(device, FS_READ_FILE | FS_WRITE_FILE) for device in devices]
    try:
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            try:
                if not os.path.isdir(path):
                    rights &= FS_FILE_ONLY
                rule = _PathBeneath(rights & fs, fd)
                _check(
                    libc.syscall(
                        add_rule, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0)
                    ),
                    f"landlock_add_rule({path})",
                )
            finally:
                os.close(fd)
        _no_new_privs(libc)
        _check(libc.syscall(restrict, ruleset, ctypes.c_uint32(0)), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    scope = ", signals and abstract sockets scoped" if abi >= 6 else ""
    return f"landlock ABI {abi}: files outside the folder and read roots{scope}"


def drop_capabilities():
    """Empty every capability set of this process (bounding set first, while CAP_SETPCAP is
    still held); a process without capabilities keeps working unchanged."""
    libc, table = _libc(), _arch()
    try:
        last = int(open("/proc/sys/kernel/cap_last_cap").read())
    except OSError:
        last = 40
    for cap in range(last + 1):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 and ctypes.get_errno() != 22:
            raise OSError(ctypes.get_errno(), f"prctl(CAPBSET_DROP, {cap})")  # EINVAL: unknown
    header, data = _CapHeader(CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    _check(libc.syscall(table["capset"], ctypes.byref(header), data), "capset")
    return "capabilities: none (bounding, permitted, effective, inheritable sets emptied)"


def seccomp():
    """EPERM for the syscalls of ``SYSCALLS[arch]['denied']`` in every thread of the process."""
    table, libc = _arch(), _libc()
    ld_w_abs, jeq_k, ret_k, jge_k = 0x20, 0x15, 0x06, 0x35
    allow, deny, kill = 0x7FFF0000, 0x00050000 | 1, 0x80000000  # ERRNO(EPERM), KILL_PROCESS
    denied = table["denied"]
    code = [
        (ld_w_abs, 0, 0, 4),  # A = arch
        (jeq_k, 1, 0, table["arch"]),
        (ret_k, 0, 0, kill),
        (ld_w_abs, 0, 0, 0),  # A = syscall number
        (jge_k, len(denied) + 1, 0, 0x40000000),  # x32 ABI: deny
    ]
    for i, number in enumerate(denied):
        code.append((jeq_k, len(denied) - i, 0, number))
    code += [(ret_k, 0, 0, allow), (ret_k, 0, 0, deny)]
    filters = (_Filter * len(code))(*[_Filter(*c) for c in code])
    program = _Program(len(code), filters)
    _no_new_privs(libc)
    set_mode_filter, tsync = 1, 1
    _check(libc.syscall(table["seccomp"], set_mode_filter, tsync, ctypes.byref(program)), "seccomp")
    return "seccomp: deny-list (exec, sockets, ptrace, process_vm, io_uring, setsid, admin calls)"


def support():
    """What this kernel offers, probed without applying anything: the Landlock ABI version
    (0 when absent) and whether seccomp filters are available."""
    try:
        libc, (create, _, _) = _libc(), _arch()["landlock"]
    except OSError:
        return {"landlock": 0, "seccomp": False}
    abi = libc.syscall(create, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    pr_get_seccomp = 21
    return {"landlock": max(int(abi), 0), "seccomp": libc.prctl(pr_get_seccomp, 0, 0, 0, 0) >= 0}
