import { readdirSync, readlinkSync } from 'node:fs';
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
