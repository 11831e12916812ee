/**
 * A Dockerfile read into its stages and instructions, enough for the deployment files' checks
 * (test/deploy): continuation lines joined, comments dropped, `ARG`s before the first `FROM`
 * kept as the build arguments' defaults.
 */
export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  /** The `FROM` image, build arguments substituted with their defaults. */
  from: string;
  name?: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  args: Record<string, string>;
  stages: Stage[];
}

export function parseDockerfile(text: string): Dockerfile {
  const lines = text
    .replace(/\\\r?\n(\s*#[^\n]*\n)*/g, ' ') // a continuation (comment lines inside it are dropped)
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, keyword, rest] = /^(\S+)\s*(.*)$/.exec(line)!;
    const instruction = { keyword: keyword!.toUpperCase(), args: rest!.replace(/\s+/g, ' ') };
    if (instruction.keyword === 'FROM') {
      const [image, as, name] = instruction.args.split(' ');
      stages.push({ from: image!.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => args[a ?? b] ?? ''), name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length === 0 && instruction.keyword === 'ARG') {
      const [name, value] = instruction.args.split('=');
      args[name!] = value ?? '';
    } else if (stages.length === 0) {
      throw new Error(`${instruction.keyword} before the first FROM`);
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { args, stages };
}

/** `ENV A=1 B=2` (and the legacy `ENV A 1`) of a stage, in order. */
export function stageEnv(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of stage.instructions.filter((i) => i.keyword === 'ENV')) {
    if (!i.args.includes('=')) {
      const [name, ...value] = i.args.split(' ');
      env[name!] = value.join(' ');
      continue;
    }
    for (const m of i.args.matchAll(/(\w+)=("([^"]*)"|\S*)/g)) env[m[1]!] = m[3] ?? m[2]!;
  }
  return env;
}

/** The last value of an instruction in a stage (`USER`, `CMD`, …), or undefined. */
export function last(stage: Stage, keyword: string): string | undefined {
  return stage.instructions.filter((i) => i.keyword === keyword).at(-1)?.args;
}
