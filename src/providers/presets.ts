/** The presets of the command provider for real agent CLIs, and the offline example agent. */
export { type ClaudeProviderOptions, claudeProvider, readClaudeResult } from './claude.js';
export { type CodexProviderOptions, codexProvider } from './codex.js';
export { type CopilotProviderOptions, copilotProvider, readCopilotUsage } from './copilot.js';
export { type DroidProviderOptions, droidProvider, readDroidUsage } from './droid.js';
export { exampleAgentProvider, exampleAgentScript } from './example.js';
export { type GeminiProviderOptions, geminiProvider, readGeminiUsage } from './gemini.js';
export { type OpencodeProviderOptions, opencodeProvider, readOpencodeUsage } from './opencode.js';
export { type QwenProviderOptions, qwenProvider, readQwenResult } from './qwen.js';
