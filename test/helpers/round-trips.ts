import { roundTrips } from '../../emulator/adapters/postgres/round-trips.js';

/**
 * The round trips to the database the HTTP requests of `route` made, on average, while `calls` ran
 * (the counter of emulator/adapters/postgres/round-trips.ts; call `roundTrips.countHttpRequests()` first).
 */
export async function tripsOf(route: string, calls: () => Promise<unknown>): Promise<number> {
  const before = roundTrips.snapshot().requests[route] ?? { requests: 0, trips: 0 };
  await calls();
  // The count of a request closes when its answer is handed to the socket: maybe just after the client read it.
  while ((roundTrips.snapshot().requests[route]?.requests ?? 0) === before.requests) await new Promise((resolve) => setImmediate(resolve));
  const after = roundTrips.snapshot().requests[route]!;
  return (after.trips - before.trips) / (after.requests - before.requests);
}
