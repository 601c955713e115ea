import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The socket inode of the loopback TCP connection from `clientPort` to `serverPort`, from /proc/net/tcp{,6}. */
function socketInode(clientPort: number, serverPort: number): string | undefined {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      const remote = fields[2];
      if (local?.endsWith(`:${hex(clientPort)}`) && remote?.endsWith(`:${hex(serverPort)}`)) return fields[9];
    }
  }
  return undefined;
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
