#!/usr/bin/env python3
"""tcp-proxy.py LISTEN_PORT TARGET_HOST TARGET_PORT: forwards every connection on 127.0.0.1.

The S3 tests put it between the workers and moto (which keeps its objects in memory) and kill it
to take "the server" down mid-run, dropping the connections in flight, then start it again on the
same port: to the workers the server was down and came back, with its objects.
"""
import asyncio
import sys


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def main(listen_port, host, port):
    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(host, port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))

    server = await asyncio.start_server(handle, "127.0.0.1", listen_port, reuse_address=True)
    print("listening", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2], int(sys.argv[3])))
