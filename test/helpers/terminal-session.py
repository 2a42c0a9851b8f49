"""Pastes a bash session into a pseudo-terminal, as a person pasting a doc block does (test/docs).

Reads the script from stdin, starts bash with a terminal as its stdin, stdout and stderr, writes the
whole script into the terminal at once (a terminal emulator writes a paste the same way), copies
what the session prints to stdout, and exits with bash's status (128 + N when a signal N ended it).

So every command sees what it sees in a terminal: `isTTY` on all three streams, a window size (a
spinner draws), and the lines pasted after it waiting on its stdin. A command that reads them (a
prompt, or ora's default `discardStdin`, which reads and drops them while it spins) takes them from
the shell, which then never runs them. When the shell finds no more input it ends: the docs runner
sees the blocks that never started.

bash is started with stderr on a pipe, so that it is not interactive (no prompt, no job control, no
history expansion: the session runs as a script, like the pipe run), then moves stderr to the
terminal as its first command. Echo is off (the output holds what commands print, not the paste)
and output newlines stay `\n`. The session gets no controlling terminal and stays in this process's
group, so the runner's kill of the group still ends everything it started.

Standard library only: python3 is on the development machines and on CI's Debian.
"""

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time

ROWS, COLUMNS = 24, 100
# How often an end-of-file is offered again once everything pasted has been read (see below).
EOF_EVERY_S = 0.5


def open_terminal():
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', ROWS, COLUMNS, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR
    attrs[3] &= ~termios.ECHO
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    eof = attrs[6][termios.VEOF]
    return master, slave, eof if isinstance(eof, bytes) else bytes([eof])


def canonical(fd):
    """Whether the terminal reads lines (a command in raw mode, as a spinner that discards stdin, has not put it back yet)."""
    return bool(termios.tcgetattr(fd)[3] & termios.ICANON)


def unread(fd):
    """Bytes pasted into the terminal that nobody has read yet (end-of-file marks not counted)."""
    return struct.unpack('i', fcntl.ioctl(fd, termios.FIONREAD, b'\0\0\0\0'))[0]


def main():
    script = b'exec 2>&1\n' + sys.stdin.buffer.read()
    master, slave, eof = open_terminal()
    bash = subprocess.Popen(['bash', '--noprofile', '--norc', '-s'], stdin=slave, stdout=slave, stderr=subprocess.PIPE)
    # bash's stderr pipe carries nothing after `exec 2>&1`; read it anyway so it can never block.
    err = bash.stderr.fileno()
    os.set_blocking(master, False)
    pending = script + eof
    last_eof = time.monotonic()
    out = sys.stdout.buffer
    readers = {master, err}
    while True:
        writable = [master] if pending else []
        ready, can_write, _ = select.select(list(readers), writable, [], 0.1)
        if can_write:
            try:
                pending = pending[os.write(master, pending[:4096]):]
            except BlockingIOError:
                pass
        for fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b''
            if data:
                out.write(data)
                out.flush()
            else:
                readers.discard(fd)
        if bash.poll() is not None:
            break
        # The paste is all read and the shell still runs. Either it runs its last commands (the
        # end-of-file waits in the terminal until it asks for more), or a command read the rest of
        # the paste, the end-of-file included, and the shell now waits for lines that will never
        # come: offer the end-of-file again, so that it ends and the runner reports the blocks that
        # never started instead of waiting out its time limit. Only while the terminal reads lines:
        # in raw mode the end-of-file is a plain byte (0x04), which a spinner that stops before
        # reading it leaves to the shell as a command (`$'\004': command not found`, exit 127).
        if not pending and unread(slave) == 0 and time.monotonic() - last_eof >= EOF_EVERY_S and canonical(slave):
            last_eof = time.monotonic()
            try:
                os.write(master, eof)
            except BlockingIOError:
                pass
    # What the last commands printed before the shell ended.
    deadline = time.monotonic() + 0.5
    while master in readers and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.05)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        out.write(data)
        out.flush()
    code = bash.returncode
    sys.exit(128 - code if code < 0 else code)


if __name__ == '__main__':
    main()
