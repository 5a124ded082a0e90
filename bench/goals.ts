import type { StoreMemory } from './memory';
import type { SoakVerdict } from './soak';
import { mib, p99, rps, RowResult } from './report';

export interface Goal {
  goal: string;
  measured: string;
  /** undefined: not measured (the reason is in `measured`). */
  pass: boolean | undefined;
}

export interface GoalInputs {
  results: RowResult[];
  store: StoreMemory[];
  soak: SoakVerdict | undefined;
}

const pct = (n: number) => `${(n * 100).toFixed(1)} %`;

/** A goal on a ratio of two measured figures; not measured when either is missing. */
function ratioGoal(goal: string, a: number, b: number, test: (r: number) => boolean, show = pct) {
  const r = a / b;
  return Number.isFinite(r)
    ? { goal, measured: show(r), pass: test(r) }
    : { goal, measured: 'not measured (a row is missing or failed)', pass: undefined };
}

/** The goals (bench/README.md, "Goals"), each with what this run measured. */
export function evaluateGoals({ results, store, soak }: GoalInputs): Goal[] {
  const row = (target: string, workload = 'readme') =>
    results.find((r) => r.row.target.name === target && r.row.workload === workload);
  const service = rps(row('service'));
  const express = rps(row('express-ceiling'));
  const times = (r: number) => `${r.toFixed(2)}×`;
  const worstStore = Math.max(...store.map((s) => s.bytesPerClient));
  return [
    ratioGoal('service ≥ 0.85 × the Express ceiling', service, express, (r) => r >= 0.85, times),
    ratioGoal(
      '429 path ≥ 0.95 × the Express ceiling (200 path)',
      rps(row('service-429')),
      express,
      (r) => r >= 0.95,
      times,
    ),
    ratioGoal(
      'p99 at 50 connections ≤ 1.25 × the Express ceiling’s',
      p99(row('service')),
      p99(row('express-ceiling')),
      (r) => r <= 1.25,
      (r) =>
        `${p99(row('service')).toFixed(2)} ms vs ${p99(row('express-ceiling')).toFixed(2)} ms: ${times(r)}`,
    ),
    ratioGoal(
      'pinned Node ≥ 2 × the same build on BENCH_COMPARE_NODE',
      service,
      rps(row('service-other-node')),
      (r) => r >= 2,
      times,
    ),
    ratioGoal(
      'Redis store ≥ 75 % of the in-memory store',
      rps(row('service-redis')),
      service,
      (r) => r >= 0.75,
    ),
    {
      goal: 'in-memory store ≤ 120 bytes per client',
      measured: store.length
        ? store
            .map((s) => `${s.kind} ${s.clients / 1000}k: ${s.bytesPerClient.toFixed(0)} B`)
            .join(', ')
        : 'not measured',
      pass: store.length ? worstStore <= 120 : undefined,
    },
    {
      goal: 'RSS flat over the soak',
      measured: soak
        ? `peaks ${mib(soak.firstHalfPeak)} → ${mib(soak.secondHalfPeak)} MiB (first → second half)`
        : 'not run',
      pass: soak?.flat,
    },
  ];
}

export function goalsTable(goals: Goal[]): string {
  const verdict = (pass: boolean | undefined) =>
    pass === undefined ? 'not measured' : pass ? 'PASS' : '**FAIL**';
  return [
    '| goal | measured | result |',
    '|---|---|---|',
    ...goals.map((g) => `| ${g.goal} | ${g.measured} | ${verdict(g.pass)} |`),
  ].join('\n');
}
