// The bench's printed table: one row per figure with its goal and whether it was met, and the number format of its values.
import { cpus, totalmem } from 'node:os';

export interface Row {
  figure: string;
  value: string;
  goal: string;
  ok: boolean | undefined;
}

export function n(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function table(rows: Row[]): string {
  const w = [
    Math.max(...rows.map((r) => r.figure.length)),
    Math.max(...rows.map((r) => r.value.length)),
    Math.max(...rows.map((r) => r.goal.length)),
  ];
  const line = (a: string, b: string, c: string, d: string) =>
    `| ${a.padEnd(w[0]!)} | ${b.padStart(w[1]!)} | ${c.padEnd(w[2]!)} | ${d.padEnd(4)} |`;
  return [
    line('figure', 'value', 'goal', 'met'),
    `|${'-'.repeat(w[0]! + 2)}|${'-'.repeat(w[1]! + 2)}|${'-'.repeat(w[2]! + 2)}|------|`,
    ...rows.map((r) => line(r.figure, r.value, r.goal, r.ok === undefined ? '' : r.ok ? 'yes' : 'NO')),
  ].join('\n');
}

/** The machine a figure was measured on: cores, CPU model, memory, Node. */
export function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${n(totalmem() / 2 ** 30, 1)} GiB RAM, Node ${process.version}, ${process.platform}`;
}
