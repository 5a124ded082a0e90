import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Our own files change with each release; the browser revalidates them. */
export const OWN_FILE_CACHING = 'no-cache';
/** A dependency's files (Chart.js, Swagger UI) change only when package.json does. */
export const LIBRARY_CACHING = 'public, max-age=86400';

/** Found by walking up, the same from `dist/page/` (`npm start`) and `src/page/` (ts-jest). */
function packageRoot(): string {
  let folder = __dirname;
  while (!existsSync(join(folder, 'package.json'))) {
    if (dirname(folder) === folder) throw new Error(`No package.json above ${__dirname}`);
    folder = dirname(folder);
  }
  return folder;
}

/** The package's exports map hides dist/chart.umd.js, but its main entry lives beside it. */
export const chartJsPath = (): string => join(dirname(require.resolve('chart.js')), 'chart.umd.js');

/** Built by `npm run build` (clients/typescript): one ES module with no imports. */
export const clientPath = (): string => require.resolve('@vehicle-depreciation/client');

/** Held in memory: the files are few and small (Chart.js is ~200 kB). */
export function asset(path: string, type: string, cacheControl = OWN_FILE_CACHING) {
  return { body: readFileSync(path), contentType: type, cacheControl };
}
export type PageAsset = ReturnType<typeof asset>;

/** Read once, so a missing file stops start-up; only these names exist, no directory to walk. */
export function loadPageAssets(root: string = packageRoot()) {
  const file = (name: string) => join(root, 'public', name);
  return {
    page: asset(file('index.html'), 'text/html; charset=utf-8'),
    assets: new Map<string, PageAsset>([
      ['calculator.js', asset(file('calculator.js'), 'text/javascript; charset=utf-8')],
      ['depreciation-client.js', asset(clientPath(), 'text/javascript; charset=utf-8')],
      ['calculator.css', asset(file('calculator.css'), 'text/css; charset=utf-8')],
      ['favicon.svg', asset(file('favicon.svg'), 'image/svg+xml')],
      ['chart.umd.js', asset(chartJsPath(), 'text/javascript; charset=utf-8', LIBRARY_CACHING)],
    ]),
  };
}
