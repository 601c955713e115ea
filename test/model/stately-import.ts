import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The source of a machine file (`src/machines/…`, from the project's root) as written. Under Stryker the tests run
 * in a sandbox (a folder .stryker-tmp/sandbox-NAME, or under the `--tempDirName` given, .stryker-tmp-NAME/…) whose
 * copy is instrumented with mutants; the import check is about the source as written, so this reads the project's
 * own copy.
 */
export function machineSource(file: string): string {
  const path = fileURLToPath(new URL(`../../${file}`, import.meta.url)).replace(
    /\/\.stryker-tmp[^/]*\/[^/]+\//,
    '/',
  );
  return readFileSync(path, 'utf8');
}

/** Keys whose value Stately's code import reads only as a string literal (or, for tags, a list of them). */
const LITERAL_KEYS = new Set(['id', 'src', 'initial', 'type', 'target', 'description', 'tags']);

const isFunction = (node: ts.Node): boolean =>
  ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isMethodDeclaration(node);

const isStringLiteral = (node: ts.Node): boolean => ts.isStringLiteral(node);

/**
 * What in a machine file would keep Stately Studio's "import from code" (and the Stately VS Code extension) from
 * reading the machine as it is: anything but exactly one `createMachine` call with an inline config object;
 * in that config (functions aside, which the import keeps as inline implementations) a spread, a computed or
 * shorthand key, or an id, src, initial state, type, target, description or tag that is not a string literal
 * (the import reads those from the syntax, so an expression or a template literal is lost). Empty when none.
 */
export function statelyImportProblems(source: string): string[] {
  const file = ts.createSourceFile('machine.ts', source, ts.ScriptTarget.Latest, true);
  const problems: string[] = [];
  const where = (node: ts.Node) => `line ${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;

  const calls: ts.CallExpression[] = [];
  const findCalls = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : ts.isIdentifier(callee)
          ? callee.text
          : '';
      if (name === 'createMachine') calls.push(node);
    }
    ts.forEachChild(node, findCalls);
  };
  findCalls(file);
  if (calls.length !== 1) return [`expected one createMachine call, found ${calls.length}`];
  const config = calls[0]?.arguments[0];
  if (config === undefined || !ts.isObjectLiteralExpression(config))
    return ['the createMachine call is not given an inline config object'];

  const checkLiteral = (key: string, value: ts.Expression) => {
    if (key === 'tags' && ts.isArrayLiteralExpression(value)) {
      for (const tag of value.elements)
        if (!isStringLiteral(tag)) problems.push(`${where(tag)}: a tag that is not a string literal`);
      return;
    }
    // A transition's target may be one of several: a list of string literals.
    if (key === 'target' && ts.isArrayLiteralExpression(value) && value.elements.every(isStringLiteral))
      return;
    if (!isStringLiteral(value)) problems.push(`${where(value)}: "${key}" is not a string literal`);
  };

  const visit = (node: ts.Node) => {
    if (isFunction(node)) return;
    if (ts.isSpreadAssignment(node) || ts.isSpreadElement(node)) problems.push(`${where(node)}: a spread`);
    if (ts.isShorthandPropertyAssignment(node)) problems.push(`${where(node)}: a shorthand key`);
    if (ts.isPropertyAssignment(node)) {
      if (ts.isComputedPropertyName(node.name)) problems.push(`${where(node)}: a computed key`);
      else if (LITERAL_KEYS.has(node.name.getText(file)) && !isFunction(node.initializer))
        checkLiteral(node.name.getText(file), node.initializer);
    }
    ts.forEachChild(node, visit);
  };
  visit(config);
  return problems;
}
