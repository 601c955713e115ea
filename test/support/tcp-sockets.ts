import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** A TCP socket of this machine as /proc/net/tcp{,6} lists it (Linux). */
export interface TcpSocket {
  localPort: number;
  remotePort: number;
  /** The kernel's state number: 1 is ESTABLISHED, 10 LISTEN. */
  state: number;
  /** The socket's inode: a process holding it has an fd linked to `socket:[inode]`. */
  inode: string;
}

const portOf = (address: string | undefined) => Number.parseInt(address?.split(':')[1] ?? '', 16);

/** Every TCP socket of this machine (IPv4 and IPv6), from /proc/net/tcp{,6}; none where there is no /proc. */
export function tcpSockets(): TcpSocket[] {
  const sockets: TcpSocket[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
      const fields = line.trim().split(/\s+/);
      if (fields.length <= 9) continue;
      sockets.push({
        localPort: portOf(fields[1]),
        remotePort: portOf(fields[2]),
        state: Number.parseInt(fields[3] ?? '', 16),
        inode: fields[9] as string,
      });
    }
  }
  return sockets;
}

/** The inodes of the established TCP sockets of this machine whose far end is `port` (a server of this machine). */
export function socketsTo(port: number): Set<string> {
  return new Set(
    tcpSockets()
      .filter((socket) => socket.remotePort === port && socket.state === 1)
      .map((socket) => socket.inode),
  );
}

/** How many of the sockets `inodes` process `pid` holds open (0 for a process that is gone). */
export function connectionsHeldBy(pid: number, inodes: Set<string>): number {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return 0;
  }
  let held = 0;
  for (const fd of fds) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode !== undefined && inodes.has(inode)) held += 1;
    } catch {
      // closed meanwhile
    }
  }
  return held;
}

/** How many connections to `port` (a Postgres server of this machine) process `pid` holds open. */
export function connectionsTo(pid: number, port: number): number {
  return connectionsHeldBy(pid, socketsTo(port));
}
