// The relying party (openid-client) and its dependencies ship as ES modules only. Node loads
// them with `require`, but Jest's module system does not (before Node 24.9): under Jest alone
// they are turned into CommonJS here, with the TypeScript already installed.
const ts = require('typescript');

module.exports = {
  process(source, path) {
    const { outputText } = ts.transpileModule(source, {
      fileName: path,
      compilerOptions: {
        allowJs: true,
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      },
    });
    return { code: outputText };
  },
};
