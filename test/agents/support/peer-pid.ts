import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tcpSockets } from '../../support/tcp-sockets.js';

/** The socket inode of the loopback TCP connection from `clientPort` to `serverPort`. */
function socketInode(clientPort: number, serverPort: number): string | undefined {
  return tcpSockets().find((socket) => socket.localPort === clientPort && socket.remotePort === serverPort)
    ?.inode;
}

/**
 * The pid of the process on this machine that holds the client end of a loopback connection to `serverPort`, found
 * through /proc (Linux); undefined when it cannot be told. It names which process made a request to a scripted
 * server, so a test can tell one child process from the next and check that none is left.
 */
export function peerPid(clientPort: number, serverPort: number): number | undefined {
  const inode = socketInode(clientPort, serverPort);
  if (inode === undefined || inode === '0') return undefined;
  const target = `socket:[${inode}]`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${entry}/fd/${fd}`) === target) return Number(entry);
      } catch {
        // the fd closed while we looked
      }
    }
  }
  return undefined;
}

/**
 * The argv of a live process (its /proc cmdline, NUL-separated), or undefined when it is gone or cannot be read: what
 * a test reads to see the flags a real agent program was started with.
 */
export function processArgv(pid: number | undefined): string[] | undefined {
  if (pid === undefined) return undefined;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return undefined;
  }
}

/** The PID namespace of a live process (`pid:[…]`), or undefined when it is gone or cannot be told. */
export function pidNamespaceOf(pid: number | undefined): string | undefined {
  if (pid === undefined) return undefined;
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

/** This process's PID namespace: a caller in another one runs in a sandbox (ralph's `--sandbox`). */
export const OWN_PID_NAMESPACE = readlinkSync('/proc/self/ns/pid');

/**
 * The PID namespace of the process that sent each request `server` receives, in arrival order, read as the request
 * arrives (while its sender surely still holds the connection); undefined where it could not be told.
 */
export function callerNamespaces(server: Server): (string | undefined)[] {
  const namespaces: (string | undefined)[] = [];
  server.on('request', (req) => {
    const { port } = server.address() as AddressInfo;
    const client = req.socket.remotePort;
    namespaces.push(pidNamespaceOf(client === undefined ? undefined : peerPid(client, port)));
  });
  return namespaces;
}
