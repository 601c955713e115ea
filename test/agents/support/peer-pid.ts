import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
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
