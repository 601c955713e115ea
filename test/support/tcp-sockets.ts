import { readFileSync } from 'node:fs';

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
