#!/usr/bin/env node
// Reads a CycloneDX SBOM from `npm sbom` on stdin and writes it with each npm package's name and
// group taken from its package URL. npm names a workspace (and the root) after its folder, so the
// client in clients/typescript was listed as "typescript@1.0.0" beside TypeScript's own package.
'use strict';

const PURL = /^pkg:npm\/(?:(%40[^/]+)\/)?([^@/]+)@/;

function named(component) {
  const match = PURL.exec(component.purl ?? '');
  if (match === null) return component;
  const [, scope, name] = match;
  const { group: _group, ...rest } = component;
  return {
    ...rest,
    ...(scope && { group: decodeURIComponent(scope) }),
    name: decodeURIComponent(name),
  };
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const sbom = JSON.parse(input);
  sbom.metadata.component = named(sbom.metadata.component);
  sbom.components = (sbom.components ?? []).map(named);
  process.stdout.write(`${JSON.stringify(sbom, null, 2)}\n`);
});
