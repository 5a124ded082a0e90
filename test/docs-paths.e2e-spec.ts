import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

/**
 * Every repository file the docs name exists: the Markdown's relative links (against the doc's
 * folder), its code spans that look like a repository path and the file names in the Kubernetes
 * manifests' comments (both against the root or the doc's folder). A doc that names a renamed or
 * deleted file fails here: correct the doc.
 */

const ROOT = join(__dirname, '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const filesIn = (folder: string, extension: string) =>
  readdirSync(join(ROOT, folder))
    .filter((name) => name.endsWith(extension))
    .map((name) => `${folder}/${name}`);

const MARKDOWN = [
  ...['README.md', 'bench/README.md', 'clients/typescript/README.md', 'SECURITY.md'],
  ...filesIn('docs', '.md'),
];
/** Generated outputs, absent from a fresh clone: under a folder .gitignore lists (dist/, build/). */
const GENERATED = read('.gitignore')
  .split('\n')
  .filter((line) => line.endsWith('/'));
/** A relative path, not a URL, an API path, a glob, a placeholder or a command, nor generated. */
const isPath = (text: string) =>
  /^[\w.-][\w./-]*$/.test(text) && !GENERATED.some((folder) => `/${text}/`.includes(`/${folder}`));
const looksLikeRepoPath = (text: string) =>
  /^(src|test|bench|docs|deploy|scripts|clients|public)\//.test(text) ||
  (text.includes('/') && /\.[a-z]\w*$/i.test(text));

interface Named {
  doc: string;
  path: string;
  files: string[];
}
const inFolderOrRoot = (doc: string, path: string) => [posix.join(posix.dirname(doc), path), path];

/** Each path a Markdown text names, with where it is looked for. */
function namedInMarkdown(doc: string, text: string): Named[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '');
  const links = [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1].replace(/#.*/, ''))
    .filter((target) => target !== '' && !/^[a-z][\w+.-]*:/i.test(target))
    .map((path) => ({ doc, path, files: [posix.join(posix.dirname(doc), path)] }));
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)]
    .map((match) => match[1].trim())
    .filter((path) => isPath(path) && looksLikeRepoPath(path))
    .map((path) => ({ doc, path, files: inFolderOrRoot(doc, path) }));
  return [...links, ...spans];
}

/** The Unreleased section only: older entries describe the tree as it was. */
const unreleased = read('CHANGELOG.md')
  .split(/^## /m)
  .find((section) => section.startsWith('Unreleased'));

const named: Named[] = [
  ...MARKDOWN.flatMap((doc) => namedInMarkdown(doc, read(doc))),
  ...namedInMarkdown('CHANGELOG.md', unreleased ?? ''),
  ...filesIn('deploy/kubernetes', '.yaml').flatMap((doc) =>
    [...read(doc).matchAll(/(?:^|\s)#(.*)/gm)]
      .flatMap((comment) => [...comment[1].matchAll(/[\w./-]+\.(?:md|ts|js|json|ya?ml|sh)\b/g)])
      .map(([path]) => ({ doc, path, files: inFolderOrRoot(doc, path) })),
  ),
];

describe('the paths named in the docs', () => {
  it('finds the paths (the extraction still works)', () => {
    expect(named.length).toBeGreaterThan(150);
  });

  it('names only files and folders that exist', () => {
    const missing = named
      .filter(({ files }) => !files.some((file) => existsSync(join(ROOT, file))))
      .map(({ doc, path }) => `${doc}: ${path}`);
    expect([...new Set(missing)]).toEqual([]);
  });
});
