#!/usr/bin/env python3
"""tcp-proxy.py LISTEN_PORT TARGET_HOST TARGET_PORT [--cut-at-put N]: forwards every connection on 127.0.0.1.

The S3 tests put it between the workers and moto (which keeps its objects in memory) and kill it
to take "the server" down mid-run, dropping the connections in flight, then start it again on the
same port: to the workers the server was down and came back, with its objects.

With --cut-at-put N the proxy takes the server down by itself when the N-th PUT request arrives
(counted over all connections, before any of its bytes are forwarded): it prints "cut" and exits,
dropping every connection. The N-1 PUTs before it reached the server; the N-th, and every store
after it until the server is back, meets the outage. Where a test needs "some stores done, and
at least one store still to come when the server goes down", this says it through the code
instead of through how fast the machine happens to be.
"""
import asyncio
import os
import sys

puts_seen = 0


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def pipe_requests(reader, writer, cut_at_put):
    """Forwards HTTP/1.1 requests one by one (Content-Length bodies), counting PUTs."""
    global puts_seen
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            if head.startswith(b"PUT "):
                puts_seen += 1
                if puts_seen >= cut_at_put:
                    print("cut", flush=True)
                    os._exit(0)
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value.strip())
                elif name == b"transfer-encoding":
                    print(f"tcp-proxy: unsupported transfer-encoding {value.strip()!r}", file=sys.stderr, flush=True)
                    os._exit(3)
            writer.write(head)
            while length > 0:
                chunk = await reader.read(min(length, 65536))
                if not chunk:
                    return
                writer.write(chunk)
                length -= len(chunk)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def main(listen_port, host, port, cut_at_put):
    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(host, port)
        except OSError:
            client_writer.close()
            return
        upstream = pipe(client_reader, server_writer) if cut_at_put is None else pipe_requests(client_reader, server_writer, cut_at_put)
        await asyncio.gather(upstream, pipe(server_reader, client_writer))

    server = await asyncio.start_server(handle, "127.0.0.1", listen_port, reuse_address=True)
    print("listening", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    args = sys.argv[1:]
    cut = None
    if "--cut-at-put" in args:
        i = args.index("--cut-at-put")
        cut = int(args[i + 1])
        del args[i : i + 2]
    asyncio.run(main(int(args[0]), args[1], int(args[2]), cut))
