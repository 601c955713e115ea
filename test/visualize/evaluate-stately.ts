import { type AnyStateMachine, createMachine } from 'xstate';

/**
 * Runs generated Stately code as the module it is, with `createMachine` from this project's xstate, and returns the
 * machine it exports. The code is plain JavaScript but for its import and export lines, which are the only ones
 * rewritten here; anything else that is not literal code would fail to run.
 */
export function evaluateStatelyCode(code: string): AnyStateMachine {
  const importLine = "import { createMachine } from 'xstate';\n";
  const exportStart = 'export const machine = ';
  if (!code.includes(importLine) || !code.includes(exportStart))
    throw new Error('generated Stately code lacks its import of createMachine or its export of machine');
  const body = code.replace(importLine, '').replace(exportStart, 'return ');
  return new Function('createMachine', body)(createMachine) as AnyStateMachine;
}
