import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { PROCESS_TEST_TIMEOUT_MS } from '../src/testing/processes';

const ROOT = join(__dirname, '..');
const COMMITTED = join(ROOT, 'openapi.json');
const CONFIG = join(ROOT, 'redocly.yaml');
const CLI = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');

interface Problem {
  ruleId: string;
  severity: string;
  message: string;
  location: Array<{ source: { ref: string }; pointer: string }>;
}

/**
 * Redocly CLI's lint of `files` under redocly.yaml's rules, run on the pinned Node
 * (process.execPath), offline: no usage report (telemetry off, in the config and here) and no
 * update check.
 */
function lint(files: string[]): { status: number | null; problems: Problem[]; output: string } {
  const run = spawnSync(
    process.execPath,
    [CLI, 'lint', ...files, '--config', CONFIG, '--format', 'json'],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  const output = `${run.stdout}${run.stderr}`;
  // 0: no problem, 1: problems found; anything else is the linter failing to run.
  if (run.status !== 0 && run.status !== 1)
    throw new Error(`redocly lint: ${run.status}\n${output}`);
  // With several files, the report is one JSON object per file, written back to back (`}{`).
  const reports = JSON.parse(`[${run.stdout.replace(/^\}\{$/gm, '},{')}]`) as Array<{
    problems: Problem[];
  }>;
  const problems = reports.flatMap((report) => report.problems);
  return { status: run.status, problems, output };
}

type Document = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const operation = (document: Document): Document =>
  document.paths['/api/depreciate'].post as Document;

/** One defect each, seeded into a copy of openapi.json, and the one rule that must report it. */
const SEEDED: Array<{ defect: string; rule: string; seed: (document: Document) => void }> = [
  {
    defect: 'a request example whose field has the wrong type',
    rule: 'no-invalid-media-type-examples',
    seed: (document) => {
      const body = operation(document).requestBody.content['application/json'];
      body.examples.sedan.value.purchaseYear = '2020';
    },
  },
  {
    defect: 'an error example with a field its schema lacks',
    rule: 'no-invalid-media-type-examples',
    seed: (document) => {
      operation(document).responses['400'].content['application/json'].example.error = 'Bad';
    },
  },
  {
    defect: 'a schema example outside its range',
    rule: 'no-invalid-schema-examples',
    seed: (document) => {
      document.components.schemas.DepreciationRequest.properties.purchasePrice.example = 0;
    },
  },
  {
    defect: 'an operation without operationId',
    rule: 'operation-operationId',
    seed: (document) => delete operation(document).operationId,
  },
  {
    defect: 'an operation without a 4xx answer',
    rule: 'operation-4xx-response',
    seed: (document) => {
      const { responses } = operation(document);
      for (const status of Object.keys(responses))
        if (status.startsWith('4')) delete responses[status];
    },
  },
  {
    defect: 'a component nothing uses',
    rule: 'no-unused-components',
    seed: (document) => {
      document.components.schemas.Leftover = { type: 'string', example: 'x' };
    },
  },
  {
    defect: 'an operation tag that is not declared',
    rule: 'operation-tag-defined',
    seed: (document) => (document.tags = []),
  },
];

/**
 * The committed OpenAPI document passes the OpenAPI lint (redocly.yaml: ids, summaries, examples
 * valid against their schemas, 4xx answers documented, no unused components, servers, tags), and
 * the lint does fail on a defect of each kind it is there for.
 */
describe('OpenAPI lint (redocly.yaml)', () => {
  it(
    'finds no problem in the committed openapi.json (else: fix the decorators, npm run openapi)',
    () => {
      const { status, problems, output } = lint([COMMITTED]);
      expect(problems.map(({ ruleId, message }) => `${ruleId}: ${message}`)).toEqual([]);
      expect({ status, output }).toMatchObject({ status: 0 });
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'reports each seeded defect by its rule, and only that',
    () => {
      const directory = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
      try {
        const files = SEEDED.map(({ seed }, index) => {
          const document = JSON.parse(readFileSync(COMMITTED, 'utf8')) as Document;
          seed(document);
          const file = join(directory, `seeded-${index}.json`);
          writeFileSync(file, JSON.stringify(document, null, 2));
          return file;
        });
        // One run for all the copies: each problem names the file it is in.
        const { status, problems } = lint(files);
        const found = SEEDED.map(({ defect }, index) => ({
          defect,
          rules: problems
            .filter(({ location }) => basename(location[0].source.ref) === basename(files[index]))
            .map(({ ruleId }) => ruleId),
        }));
        expect(found).toEqual(SEEDED.map(({ defect, rule }) => ({ defect, rules: [rule] })));
        expect(status).toBe(1);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
