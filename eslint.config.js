// Plain `npx eslint` and editors look for this file; the configuration itself is .eslintrc.js.
module.exports = require('./.eslintrc.js');
