import { RalphError } from '../../contract/errors.js';
import { parseNumberOption } from '../../run/numbers.js';
import { type FleetOptions, reportFleetFailure, withFleet } from './fleet-cli.js';
import { nextInterrupt } from './inspect-run.js';

/** The options of `ralph dashboard`. */
export interface DashboardOptions extends FleetOptions {
  host?: string;
  port?: string;
  pageSize?: string;
}

/** The runs a dashboard page shows unless --page-size says otherwise. */
export const DEFAULT_PAGE_SIZE = 50;

/** Said on stderr once the dashboard listens. */
export const dashboardAt = (url: string): string => `ralph: dashboard at ${url}`;

/** Said on stderr when the dashboard listens beyond this machine. */
export const dashboardExposed = (host: string): string =>
  `ralph: warning: the dashboard listens on ${host}, beyond this machine: anyone who has its address (with the ` +
  'token) can see every run and cancel it; the address travels unencrypted over plain HTTP';

const refuse = (message: string) => new RalphError({ code: 'refused', message });

/** An integer option within [min, max], or a refusal naming the option. */
function integerOption(
  name: string,
  text: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (text === undefined) return fallback;
  const value = parseNumberOption(text);
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw refuse(
      `ralph dashboard ${name} takes a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`,
    );
  return value;
}

/**
 * `ralph dashboard`: serves the fleet's web page (runs, workers, each run's report, cancel) on 127.0.0.1, or the
 * --host given, until Ctrl-C; then closes every connection to the database and exits 0. Refused (exit 2) when an
 * option is wrong or the address cannot be listened on; nothing is served then.
 */
export async function dashboardCommand(options: DashboardOptions): Promise<number> {
  let port: number;
  let pageSize: number;
  try {
    port = integerOption('--port', options.port, 0, 0, 65_535);
    pageSize = integerOption('--page-size', options.pageSize, DEFAULT_PAGE_SIZE, 1, 200);
  } catch (error) {
    return reportFleetFailure(error);
  }
  return withFleet(options, async (fleet, databaseUrl) => {
    const [{ startDashboardServer, DASHBOARD_HOST }, { DashboardQueries }, { RunEventTable }, pg, svg] =
      await Promise.all([
        import('./dashboard/server.js'),
        import('../../fleet/dashboard-queries.js'),
        import('../../fleet/run-events.js'),
        import('../../fleet/pg-pool.js'),
        import('./machine-svg.js'),
      ]);
    const host = options.host ?? DASHBOARD_HOST;
    const pool = pg.createPgPool({
      connectionString: databaseUrl,
      max: 4,
      connectionTimeoutMillis: 5_000,
    });
    pool.on('error', () => {});
    try {
      let server: Awaited<ReturnType<typeof startDashboardServer>>;
      try {
        server = await startDashboardServer(
          { queries: new DashboardQueries(pool), events: new RunEventTable(pool), fleet },
          { host, port, pageSize, machineSvg: svg.machineSvg('ralph dashboard') },
        );
      } catch (error) {
        const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        throw refuse(`ralph dashboard cannot listen on ${host}:${port}: ${reason}`);
      }
      process.stderr.write(`${dashboardAt(server.url)}\n`);
      if (!['127.0.0.1', 'localhost', '::1'].includes(host))
        process.stderr.write(`${dashboardExposed(host)}\n`);
      await nextInterrupt();
      await server.close();
      return 0;
    } finally {
      await pool.end().catch(() => {});
    }
  });
}
