"""The host's side of tests/system/test-pi-image.sh: boot the card under QEMU's raspi3b, hear the check.

Each boot runs ``qemu-system-aarch64 -M raspi3b`` on the card, with the kernel, initrd and device tree
taken from its FAT partition (the test prepares them) and the card's own cmdline.txt plus what the check
in the guest (tests/system/pi/check.sh) is to do. The guest's lines on its serial console
("PI-CHECK ok: ...") are printed as "ok: ..."; its requests are done here: ``web PORT`` fetches the
web view through QEMU's forwarded port, ``cut N`` kills QEMU (the power cut) and boots again. The whole
console is kept in the log file. Exit status 0 when every check said ok.

    python3 pi_image.py CARD KERNEL INITRD DTB CMDLINE LOG --cuts 3 [--host-checks FILE]
"""

from __future__ import annotations

import argparse
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

LINE = re.compile(r"PI-CHECK (ok|FAILED|skipped|host|booted|done|#)(?::)? ?(.*?)\r?$")
BOOT_LIMIT_S = 1800  # one boot, its checks and one entry under TCG on a busy two-core machine


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def qemu_line(args, append: str, port: int) -> list[str]:
    return ["qemu-system-aarch64", "-M", "raspi3b", "-kernel", args.kernel, "-initrd", args.initrd,
            "-dtb", args.dtb, "-append", append,
            "-drive", f"file={args.card},format=raw,if=sd",
            "-device", "ssd0303,bus=i2c-bus.1,address=0x3c",
            "-netdev", f"user,id=net0,hostfwd=tcp:127.0.0.1:{port}-:8121",
            "-device", "usb-net,netdev=net0",
            "-display", "none", "-monitor", "none", "-serial", "null", "-serial", "stdio", "-no-reboot"]


def boot(args, phase: str, log, results: dict) -> str:
    """One boot until the guest asks for a cut ("cut"), powers off ("off") or the limit ("timeout")."""
    port = free_port()
    append = f"{args.cmdline} {phase}"
    started = time.monotonic()
    qemu = subprocess.Popen(qemu_line(args, append, port), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    assert qemu.stdout is not None
    ended = "off"
    try:
        for raw in qemu.stdout:
            text = raw.decode("utf-8", "replace")
            log.write(text)
            log.flush()
            found = LINE.search(text)
            if time.monotonic() - started > BOOT_LIMIT_S:
                ended = "timeout"
                break
            if not found:
                continue
            kind, said = found.groups()
            stamp = f"[{time.monotonic() - started:6.0f}s]"
            if kind in ("ok", "FAILED", "skipped"):
                results.setdefault(kind, []).append(said)
                print(f"{kind}: {said}", flush=True)
            elif kind == "#":
                print(f"# {said}", flush=True)
            elif kind == "booted":
                print(f"# {stamp} booted: {said}", flush=True)
            elif kind == "host" and said.startswith("web "):
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=60) as answer:
                        page = answer.read()
                    results.setdefault("ok", []).append("web from outside")
                    print(f"ok: the web view answers from outside the guest through QEMU's forwarded port: "
                          f"{answer.status}, {len(page)} bytes", flush=True)
                except OSError as error:
                    results.setdefault("FAILED", []).append("web")
                    print(f"FAILED: the web view from outside the guest: {error}", flush=True)
            elif kind == "host" and said.startswith("cut "):
                qemu.kill()  # the power cut: SIGKILL, nothing flushed by QEMU
                print(f"# {stamp} power cut {said.split()[1]} right after: {said.split(' ', 2)[2]}", flush=True)
                ended = "cut"
                break
            elif kind == "done":
                print(f"# {stamp} the guest powers off", flush=True)
    finally:
        if qemu.poll() is None:
            qemu.kill()
        qemu.wait()
    return ended


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("card", "kernel", "initrd", "dtb", "cmdline", "log"):
        parser.add_argument(name)
    parser.add_argument("--cuts", type=int, default=3)
    parser.add_argument("--host-checks", metavar="FILE", help="the host's own check lines (ok: / FAILED:), counted too")
    args = parser.parse_args(argv)
    results: dict[str, list[str]] = {}
    if args.host_checks:
        for line in Path(args.host_checks).read_text(encoding="utf-8").splitlines():
            kind, _, said = line.partition(": ")
            if kind in ("ok", "FAILED"):
                results.setdefault(kind, []).append(said)
    with Path(args.log).open("w", encoding="utf-8") as log:
        ended = boot(args, "cribbage.check=first", log, results)
        for cut in range(1, args.cuts + 1):
            if ended != "cut":
                print(f"FAILED: boot before power cut {cut} ended without a cut ({ended}); see {args.log}")
                results.setdefault("FAILED", []).append("boot")
                break
            last = " cribbage.last=1" if cut == args.cuts else ""
            ended = boot(args, f"cribbage.check=cut cribbage.expect={cut}{last}", log, results)
    said = Path(args.log).read_text(encoding="utf-8", errors="replace").count("ssd0303: ")
    if said:  # QEMU's SSD0303 model logs each command byte it does not take as its own: bytes the OLED got
        results.setdefault("ok", []).append("ssd0303")
        print(f"ok: the OLED's chip at 0x3C took the board's I2C writes: QEMU's SSD0303 model logged {said} of "
              "its command bytes (luma sends SSD1306 commands)")
    else:
        results.setdefault("FAILED", []).append("ssd0303")
        print("FAILED: QEMU's SSD0303 at 0x3C logged no byte: nothing was written to the OLED")
    oks, failed = len(results.get("ok", [])), len(results.get("FAILED", []))
    print(f"pi image raspi3b: booted, {oks} ok, {failed} failed")
    return 0 if failed == 0 and oks else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
