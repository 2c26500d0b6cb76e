// Dashboard users reachable through SCIM (spec 4.8): id, userName (an email), name, department.
import { createRng } from '../random.js';

export interface DashboardUser {
  readonly id: string;
  readonly userName: string;
  readonly givenName: string;
  readonly familyName: string;
  readonly department: string;
  readonly createdAt: string;
}

const SEEDED = [
  ['admin@example.com', 'Alex', 'Admin', 'engineering'],
  ['marketer@example.com', 'Morgan', 'Marketer', 'marketing'],
  ['analyst@example.com', 'Ana', 'Analyst', 'finance'],
  ['support@example.com', 'Sam', 'Support', 'customer_success'],
  ['intern@example.com', 'Ivo', 'Intern', 'marketing'],
] as const;

export function generateDashboardUsers(seed: number): DashboardUser[] {
  return SEEDED.map(([userName, givenName, familyName, department], i) => ({
    id: scimId(seed, i + 1),
    userName,
    givenName,
    familyName,
    department,
    createdAt: `2023-0${i + 1}-15T12:00:00.000Z`,
  }));
}

/** A UUID-shaped resource id, stable for (seed, n); SCIM ids are opaque strings and the live ones are UUIDs. */
export function scimId(seed: number, n: number): string {
  const rng = createRng((seed * 7_919 + n * 104_729) >>> 0);
  let hex = '';
  while (hex.length < 32)
    hex += Math.floor(rng() * 0x1_0000_0000)
      .toString(16)
      .padStart(8, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
