"""Clients that misbehave towards a coordinator (coord_conns.sh).
  conns.py hold SOCKET N SECONDS DONE_FILE: N silent connections and one
      that sends a byte every 2 s, all held SECONDS, then DONE_FILE written
  conns.py say SOCKET LINE: one line sent, the first answer line printed
  conns.py wait SOCKET SECONDS: a connection that sends nothing; prints the
      first line the coordinator sends, "closed" if it closes without one,
      "open" after SECONDS, "gone" if it could not connect
  conns.py stranger HOST:PORT SECONDS: a TCP connection that sends
      nothing; prints "closed" if the coordinator closes it within SECONDS,
      else "open"."""
import socket, sys, time


def unix(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


mode = sys.argv[1]
if mode == "hold":
    path, n, seconds, done = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
    idle = [unix(path) for _ in range(n)]
    dripping = unix(path)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            dripping.send(b"c")
        except OSError:
            pass
        time.sleep(2)
    open(done, "w").write("held\n")
elif mode == "say":
    s = unix(sys.argv[2])
    s.sendall((sys.argv[3] + "\n").encode())
    s.settimeout(30)
    print(s.makefile().readline().strip())
elif mode == "wait":
    try:
        s = unix(sys.argv[2])
    except OSError:  # the coordinator had gone already
        print("gone")
        sys.exit(0)
    s.settimeout(float(sys.argv[3]))
    try:
        print(s.makefile().readline().strip() or "closed")
    except socket.timeout:
        print("open")
elif mode == "stranger":
    host, port = sys.argv[2].rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.settimeout(float(sys.argv[3]))
    try:
        print("closed" if s.recv(1) == b"" else "answered")
    except socket.timeout:
        print("open")
    except OSError:
        print("closed")
