# cudnnvm shell integration for fish; in config.fish: cudnnvm init fish | source
set -gx CUDNNVM_HOOK $fish_pid
function __cudnnvm_hook --on-event fish_prompt --on-variable PWD
    set -l run 1
    if set -q _CUDNNVM_STAMP; and test "$PWD" = "$_CUDNNVM_PWD"; and test "$CUDNNVM_VERSION" = "$_CUDNNVM_VER"
        set run 0
        for f in $_CUDNNVM_WATCH
            if test "$f" -nt "$_CUDNNVM_STAMP"
                set run 1
                break
            end
        end
    end
    if test $run = 1
        if set -q _CUDNNVM_STAMP
            @EXE@ hook-env --shell fish --stamp "$_CUDNNVM_STAMP" | source
        else
            @EXE@ hook-env --shell fish | source
        end
    end
end
function cudnnvm --wraps cudnnvm
    if test "$argv[1]" = shell
        set -l out (@EXE@ shell --eval fish $argv[2..-1]); or return $status
        printf '%s\n' $out | source
        __cudnnvm_hook
    else
        @EXE@ $argv
    end
end
__cudnnvm_hook
