# fish completion for cudnnvm. Thin: commands and their summaries come from
# `cudnnvm commands --describe`, flags from `cudnnvm <command> --help`,
# versions from `cudnnvm list`, and the versions `install` offers from the
# cached mirror listing (`cudnnvm commands --remote-versions`, which never
# waits on the network).
function __cudnnvm_cmd
    set -l words (commandline -opc)
    set -e words[1]
    set -l skip 0
    for w in $words
        if test $skip = 1
            set skip 0
            continue
        end
        switch $w
            case --store --config
                set skip 1
            case '-*'
            case '*'
                echo $w
                return 0
        end
    end
    return 1
end
function __cudnnvm_versions
    command cudnnvm list 2>/dev/null | string match -r '[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+-cuda[0-9]+'
end
function __cudnnvm_flags
    command cudnnvm (__cudnnvm_cmd) --help 2>/dev/null | string match -ar -- '--[a-z][a-z0-9-]*' | sort -u
end
# exec [<spec>] -- <command> [args]: 0 once the command line after -- began
function __cudnnvm_after_dashdash
    set -l words (commandline -opc)
    contains -- exec $words; and contains -- -- $words
end
function __cudnnvm_exec_command
    set -l words (commandline -opc)
    test "$words[-1]" = --; and contains -- exec $words
end
complete -c cudnnvm -f
complete -c cudnnvm -n 'not __cudnnvm_cmd' -a '(command cudnnvm commands --describe 2>/dev/null)'
complete -c cudnnvm -n '__cudnnvm_exec_command' -a '(__fish_complete_command)'
complete -c cudnnvm -n '__cudnnvm_after_dashdash; and not __cudnnvm_exec_command' -F
complete -c cudnnvm -n '__fish_seen_subcommand_from install; and not __cudnnvm_after_dashdash' -a '(command cudnnvm commands --remote-versions 2>/dev/null)'
complete -c cudnnvm -n 'not __cudnnvm_cmd' -l help -l version -l quiet -l verbose -l no-color -l no-wait
complete -c cudnnvm -n 'not __cudnnvm_cmd' -l store -x -a '(__fish_complete_directories)'
complete -c cudnnvm -n 'not __cudnnvm_cmd' -l config -r -F
complete -c cudnnvm -n '__cudnnvm_cmd >/dev/null; and string match -q -- "-*" (commandline -ct)' -a '(__cudnnvm_flags)'
complete -c cudnnvm -n '__fish_seen_subcommand_from use global shell uninstall env exec validate venv frameworks bench; and not __cudnnvm_after_dashdash' -a '(__cudnnvm_versions)'
complete -c cudnnvm -n '__fish_seen_subcommand_from init' -a 'bash zsh fish tcsh powershell'
complete -c cudnnvm -n '__fish_seen_subcommand_from completions' -a 'bash zsh fish'
complete -c cudnnvm -n '__fish_seen_subcommand_from which' -a 'lib include root'
complete -c cudnnvm -n '__fish_seen_subcommand_from shim' -a 'add remove list'
complete -c cudnnvm -n '__fish_seen_subcommand_from help' -a '(command cudnnvm commands 2>/dev/null)'
complete -c cudnnvm -n '__fish_seen_subcommand_from env hook-env' -l shell -x -a 'sh bash zsh fish tcsh powershell cmd'
complete -c cudnnvm -n '__fish_seen_subcommand_from modulefiles' -l format -x -a 'lua tcl'
complete -c cudnnvm -n '__fish_seen_subcommand_from modulefiles' -l out -x -a '(__fish_complete_directories)'
complete -c cudnnvm -n '__fish_seen_subcommand_from import mirror' -a '(__fish_complete_directories)'
complete -c cudnnvm -n '__fish_seen_subcommand_from bench' -l dtype -x -a 'fp32 fp16 bf16'
complete -c cudnnvm -n '__fish_seen_subcommand_from install list-remote' -l source -x -a 'nvidia pypi'
complete -c cudnnvm -n '__fish_seen_subcommand_from bench' -l layout -x -a 'nchw nhwc'
complete -c cudnnvm -n '__fish_seen_subcommand_from bench' -l shapes -r -a 'resnet50 resnet50-b1'
