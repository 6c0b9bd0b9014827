export interface OptionInfo {
  flag: string;
  description: string;
  choices: readonly string[];
  takesValue: boolean;
}

export interface CommandTree {
  globals: OptionInfo[];
  commands: { name: string; description: string; options: OptionInfo[]; subcommands: string[] }[];
}

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(tree: CommandTree): string {
  const globals = tree.globals.map((option) => option.flag).join(' ');
  const cases = tree.commands
    .map((command) => {
      const words = [...command.subcommands, ...command.options.map((option) => option.flag)].join(
        ' ',
      );
      return `    ${command.name}) words=${quote(words)} ;;`;
    })
    .join('\n');
  const choices = tree.commands
    .flatMap((command) =>
      command.options
        .filter((option) => option.choices.length > 0)
        .map(
          (option) =>
            `    ${command.name}:${option.flag}) COMPREPLY=($(compgen -W ${quote(option.choices.join(' '))} -- "$cur")); return ;;`,
        ),
    )
    .join('\n');
  return `# bash completion for data; made by \`data completion bash\`
_data() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" command="" words=""
  local i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in -*) ;; *) command="\${COMP_WORDS[i]}"; break ;; esac
  done
  case "$command:$prev" in
${choices}
  esac
  if [[ -z "$command" ]]; then
    COMPREPLY=($(compgen -W ${quote(`${tree.commands.map((command) => command.name).join(' ')} ${globals}`)} -- "$cur"))
    return
  fi
  case "$command" in
${cases}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$words ${globals}" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  fi
}
complete -o default -F _data data
`;
}

function zsh(tree: CommandTree): string {
  const described = tree.commands
    .map((command) => `    ${quote(`${command.name}:${command.description.replace(/:/g, '\\:')}`)}`)
    .join('\n');
  const option = (info: OptionInfo) => {
    const value =
      info.choices.length > 0
        ? `:value:(${info.choices.join(' ')})`
        : info.takesValue
          ? ':value:'
          : '';
    return quote(`${info.flag}[${info.description.replace(/[[\]]/g, '')}]${value}`);
  };
  const cases = tree.commands
    .map((command) => {
      const subs =
        command.subcommands.length > 0
          ? ` ${quote(`1:subcommand:(${command.subcommands.join(' ')})`)}`
          : '';
      const options = [...command.options, ...tree.globals].map(option).join(' ');
      return `    ${command.name}) _arguments ${options}${subs} '*:file:_files' ;;`;
    })
    .join('\n');
  return `#compdef data
# zsh completion for data; made by \`data completion zsh\`
_data() {
  local -a commands
  commands=(
${described}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  local command=\${words[2]}
  shift words
  (( CURRENT-- ))
  case $command in
${cases}
  esac
}
compdef _data data
`;
}

function fish(tree: CommandTree): string {
  const lines = [
    '# fish completion for data; made by `data completion fish`',
    'complete -c data -f',
  ];
  for (const command of tree.commands)
    lines.push(
      `complete -c data -n __fish_use_subcommand -a ${command.name} -d ${quote(command.description)}`,
    );
  for (const info of tree.globals)
    lines.push(`complete -c data -l ${info.flag.replace(/^--/, '')} -d ${quote(info.description)}`);
  for (const command of tree.commands) {
    const when = `'__fish_seen_subcommand_from ${command.name}'`;
    for (const sub of command.subcommands) lines.push(`complete -c data -n ${when} -a ${sub}`);
    for (const info of command.options) {
      const values =
        info.choices.length > 0
          ? ` -xa ${quote(info.choices.join(' '))}`
          : info.takesValue
            ? ' -r'
            : '';
      lines.push(
        `complete -c data -n ${when} -l ${info.flag.replace(/^--/, '')}${values} -d ${quote(info.description)}`,
      );
    }
    lines.push(`complete -c data -n ${when} -F`);
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: 'bash' | 'zsh' | 'fish', tree: CommandTree): string {
  return shell === 'bash' ? bash(tree) : shell === 'zsh' ? zsh(tree) : fish(tree);
}
