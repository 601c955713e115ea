import { hostname } from 'node:os';
import { procStat, thisHost } from '../process/process-identity.js';
import { LEASE_TABLE } from './constants.js';
import type { PgPool } from './pg-pool.js';

/** A worker's row: who holds the executor id, on which host, and until when (the database's clock). */
export interface WorkerLease {
  workerId: string;
  hostname: string;
  bootId: string;
  pidNamespace: string;
  pid: number;
  startTime: string;
  leaseMs: number;
  /** Milliseconds since the epoch, by the database's clock. */
  leaseUntil: number;
  /** True when the lease ran out, by the database's clock. */
  expired: boolean;
}

/** This process as a lease records it (pid and start time from /proc where there is one). */
export interface LeaseHolder {
  hostname: string;
  bootId: string;
  pidNamespace: string;
  pid: number;
  startTime: string;
}

/** This process as the holder of a lease. */
export function thisHolder(): LeaseHolder {
  const host = thisHost();
  return {
    hostname: hostname(),
    bootId: host?.bootId ?? '',
    pidNamespace: host?.pidNamespace ?? '',
    pid: process.pid,
    startTime: host?.startTime ?? String(Date.now()),
  };
}

/**
 * Whether the lease's holder is known to be gone: it ran on this very host (same boot, same pid namespace) and its
 * process is no longer there (or its pid now names a later process). A holder elsewhere cannot be judged from here.
 */
export function holderGoneHere(lease: LeaseHolder): boolean {
  const me = thisHost();
  if (me === null || lease.bootId !== me.bootId || lease.pidNamespace !== me.pidNamespace) return false;
  const stat = procStat(lease.pid);
  return stat === null || stat.startTime !== lease.startTime || stat.state === 'Z';
}

/** Whether the lease's holder ran on this host (this boot, this pid namespace). */
export function holderHere(lease: LeaseHolder): boolean {
  const me = thisHost();
  return me !== null && lease.bootId === me.bootId && lease.pidNamespace === me.pidNamespace;
}

interface LeaseRow {
  worker_id: string;
  hostname: string;
  boot_id: string;
  pid_namespace: string;
  pid: number;
  start_time: string;
  lease_ms: number;
  lease_until: string;
  expired: boolean;
}

const leaseOf = (row: LeaseRow): WorkerLease => ({
  workerId: row.worker_id,
  hostname: row.hostname,
  bootId: row.boot_id,
  pidNamespace: row.pid_namespace,
  pid: row.pid,
  startTime: row.start_time,
  leaseMs: row.lease_ms,
  leaseUntil: Number(row.lease_until),
  expired: row.expired,
});

const COLUMNS = `worker_id, hostname, boot_id, pid_namespace, pid, start_time, lease_ms,
  (extract(epoch from lease_until) * 1000)::bigint AS lease_until, lease_until < now() AS expired`;

/** The workers' leases, one row per executor id, in the fleet's database. Times are the database's. */
export class LeaseTable {
  constructor(private readonly pool: PgPool) {}

  /** Creates the table when it is missing. */
  async ensure(): Promise<void> {
    await this.pool.query(`CREATE TABLE IF NOT EXISTS ${LEASE_TABLE} (
      worker_id text PRIMARY KEY,
      hostname text NOT NULL,
      boot_id text NOT NULL,
      pid_namespace text NOT NULL,
      pid integer NOT NULL,
      start_time text NOT NULL,
      lease_ms integer NOT NULL,
      lease_until timestamptz NOT NULL
    )`);
  }

  /** Every lease, live and expired. */
  async all(): Promise<WorkerLease[]> {
    const { rows } = await this.pool.query<LeaseRow>(
      `SELECT ${COLUMNS} FROM ${LEASE_TABLE} ORDER BY worker_id`,
    );
    return rows.map(leaseOf);
  }

  /** The lease of one executor id, if it has one. */
  async get(workerId: string): Promise<WorkerLease | undefined> {
    const { rows } = await this.pool.query<LeaseRow>(
      `SELECT ${COLUMNS} FROM ${LEASE_TABLE} WHERE worker_id = $1`,
      [workerId],
    );
    const row = rows[0];
    return row === undefined ? undefined : leaseOf(row);
  }

  /**
   * Takes `workerId` for `holder`: when no one holds it, when its lease ran out, or when `previous` (the row as read
   * just before) is still what the table holds, so two claimants of one id cannot both win. True when taken.
   */
  async claim(
    workerId: string,
    holder: LeaseHolder,
    leaseMs: number,
    previous: WorkerLease | undefined,
  ): Promise<boolean> {
    const values = [
      workerId,
      holder.hostname,
      holder.bootId,
      holder.pidNamespace,
      holder.pid,
      holder.startTime,
      leaseMs,
    ];
    if (previous === undefined) {
      const { rowCount } = await this.pool.query(
        `INSERT INTO ${LEASE_TABLE} VALUES ($1, $2, $3, $4, $5, $6, $7, now() + $7::integer * interval '1 millisecond')
         ON CONFLICT (worker_id) DO NOTHING`,
        values,
      );
      return rowCount === 1;
    }
    const { rowCount } = await this.pool.query(
      `UPDATE ${LEASE_TABLE} SET hostname = $2, boot_id = $3, pid_namespace = $4, pid = $5, start_time = $6,
         lease_ms = $7::integer, lease_until = now() + $7::integer * interval '1 millisecond'
       WHERE worker_id = $1 AND (lease_until < now() OR (pid = $8 AND start_time = $9 AND boot_id = $10))`,
      [...values, previous.pid, previous.startTime, previous.bootId],
    );
    return rowCount === 1;
  }

  /** Extends the holder's lease; false when the row is no longer the holder's (another worker took it over). */
  async renew(workerId: string, holder: LeaseHolder, leaseMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE ${LEASE_TABLE} SET lease_until = now() + $2::integer * interval '1 millisecond'
       WHERE worker_id = $1 AND pid = $3 AND start_time = $4 AND boot_id = $5`,
      [workerId, leaseMs, holder.pid, holder.startTime, holder.bootId],
    );
    return rowCount === 1;
  }

  /**
   * Ends the holder's lease, and its grace, at once: a worker that stopped its children says so, so live workers
   * take its runs over on their next heartbeat.
   */
  async expire(workerId: string, holder: LeaseHolder): Promise<void> {
    await this.pool.query(
      `UPDATE ${LEASE_TABLE} SET lease_until = now() - lease_ms * interval '1 millisecond'
       WHERE worker_id = $1 AND pid = $2 AND start_time = $3 AND boot_id = $4`,
      [workerId, holder.pid, holder.startTime, holder.bootId],
    );
  }

  /**
   * Takes an expired lease over, as the row read (`lease`) was, for `holder`: true for the one worker that won it,
   * which then resumes the dead worker's runs and `release`s the row. Until then the row is the taker's, with a lease
   * of its own, so a taker that dies half-way leaves a lease that expires and is taken over again: no run is lost.
   */
  async takeOver(
    lease: WorkerLease,
    holder: LeaseHolder,
    leaseMs: number,
    graceMs: number,
  ): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE ${LEASE_TABLE} SET hostname = $5, boot_id = $6, pid_namespace = $7, pid = $8, start_time = $9,
         lease_ms = $10::integer, lease_until = now() + $10::integer * interval '1 millisecond'
       WHERE worker_id = $1 AND pid = $2 AND start_time = $3 AND boot_id = $4
         AND lease_until + $11::integer * interval '1 millisecond' < now()`,
      [
        lease.workerId,
        lease.pid,
        lease.startTime,
        lease.bootId,
        holder.hostname,
        holder.bootId,
        holder.pidNamespace,
        holder.pid,
        holder.startTime,
        leaseMs,
        graceMs,
      ],
    );
    return rowCount === 1;
  }

  /** Removes a row the holder took over, once every run of the dead worker is back on the queue. */
  async release(workerId: string, holder: LeaseHolder): Promise<void> {
    await this.pool.query(
      `DELETE FROM ${LEASE_TABLE} WHERE worker_id = $1 AND pid = $2 AND start_time = $3 AND boot_id = $4`,
      [workerId, holder.pid, holder.startTime, holder.bootId],
    );
  }
}
