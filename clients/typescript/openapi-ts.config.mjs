// `npm run generate` (in this folder) or `npm run client` (at the root): the API's types from the
// committed OpenAPI document. Only the types plugin: the runtime (src/index.ts) is written by hand.
/** @type {import('@hey-api/openapi-ts').UserConfig} */
export default {
  input: '../../openapi.json',
  output: { path: 'src/generated' },
  plugins: ['@hey-api/typescript'],
};
