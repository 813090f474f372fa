# fish completion for cudnnvm, written by `cudnnvm completions fish`
# from its command table: each command's options, what their values and
# operands are. Installed versions come from `cudnnvm list`, the versions
# `install` offers from the cached mirror listing (`cudnnvm commands
# --remote-versions`, which never waits on the network).
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
            case --store --config --mirror
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
# __cudnnvm_is NAME...: 0 when the command being completed is one of them
function __cudnnvm_is
    contains -- (__cudnnvm_cmd) $argv
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
complete -c cudnnvm -n 'not __cudnnvm_cmd' -s h -l help -d 'usage; after a command, its usage and options'
complete -c cudnnvm -n 'not __cudnnvm_cmd' -s V -l version -d 'the version of cudnnvm, its commit and libraries (as \'version\')'
complete -c cudnnvm -n 'not __cudnnvm_cmd' -s q -l quiet -d 'print nothing but errors and requested output'
complete -c cudnnvm -n 'not __cudnnvm_cmd' -s v -l verbose -d 'say more about what is done'
complete -c cudnnvm -n 'not __cudnnvm_cmd' -l store -x -a '(__fish_complete_directories)' -d 'use the store in DIR'
complete -c cudnnvm -n 'not __cudnnvm_cmd' -l config -r -F -d 'read FILE after the system and user configuration files'
complete -c cudnnvm -n 'not __cudnnvm_cmd' -l mirror -x -d 'NVIDIA\'s redist mirror (https:// or file://) instead of [remote] mirror and CUDNNVM_MIRROR'
complete -c cudnnvm -n 'not __cudnnvm_cmd' -l no-color -d 'no colour in output (also when NO_COLOR is set)'
complete -c cudnnvm -n 'not __cudnnvm_cmd' -l no-wait -d 'exit 75 instead of waiting for a busy lock'
complete -c cudnnvm -n '__cudnnvm_is install' -l cuda -x -d 'CUDA major of the build (11, 12, 13)'
complete -c cudnnvm -n '__cudnnvm_is install' -l platform -x -d 'linux-x86_64, linux-sbsa, linux-aarch64, windows-x86_64'
complete -c cudnnvm -n '__cudnnvm_is install' -l source -x -a 'nvidia pypi' -d 'nvidia (the redist mirror) or pypi (NVIDIA\'s nvidia-cudnn-cuN wheels on [remote] index)'
complete -c cudnnvm -n '__cudnnvm_is install' -l index -x -d 'the PyPI simple index (.../simple/) instead of [remote] index, as pip\'s --index-url; implies --source pypi'
complete -c cudnnvm -n '__cudnnvm_is install' -l archive -r -F -d 'install a local NVIDIA archive or wheel (.whl; needs --sha256)'
complete -c cudnnvm -n '__cudnnvm_is install' -l sha256 -x -d 'expected sha256 of --archive'
complete -c cudnnvm -n '__cudnnvm_is install' -l version -x -d 'version when the file name does not carry it'
complete -c cudnnvm -n '__cudnnvm_is install' -l force -d 'reinstall an installed version'
complete -c cudnnvm -n '__cudnnvm_is install' -l even-if-in-use -d 'with --force: replace it even while running programs have its libraries loaded'
complete -c cudnnvm -n '__cudnnvm_is install' -l no-validate -d 'do not validate after installing'
complete -c cudnnvm -n '__cudnnvm_is install' -l refresh -d 're-read the mirror\'s index now'
complete -c cudnnvm -n '__cudnnvm_is install' -l jobs -x -d 'threads that decompress the archive (default: [install] threads, else two per usable core for a tar.xz on 4 cores or more (64 at most), one per core otherwise)'
complete -c cudnnvm -n '__cudnnvm_is install' -l deps -x -a 'auto always never' -d 'cuBLAS and nvrtc beside cuDNN: auto (install what this machine cannot find), always (into the store), never (default: [install] deps)'
complete -c cudnnvm -n '__cudnnvm_is install' -l keep -d 'keep the verified archive in the cache (as [install] keep_archives = yes) for a reinstall without the network'
complete -c cudnnvm -n '__cudnnvm_is install' -l locked -d 'with no spec: fail (exit 1) unless cudnnvm.lock locks the pin'
complete -c cudnnvm -n '__cudnnvm_is install' -l frozen -d 'with no spec: install what cudnnvm.lock names, reading no manifest and not checking it against the pin'
complete -c cudnnvm -n '__cudnnvm_is install' -l prefix -x -a '(__fish_complete_directories)' -d 'with --layout: also copy the version into this tree'
complete -c cudnnvm -n '__cudnnvm_is install' -l layout -x -a 'easybuild' -d 'easybuild: an EESSI host_injections tree, software/cuDNN/<ver>/ (needs --prefix and --accept-eula)'
complete -c cudnnvm -n '__cudnnvm_is install' -l accept-eula -d 'with --layout easybuild: you accept NVIDIA\'s cuDNN licence (its LICENSE file) for the site'
complete -c cudnnvm -n '__cudnnvm_is install' -l mirror -x -d 'NVIDIA\'s redist mirror (https:// or file://) instead of [remote] mirror and CUDNNVM_MIRROR'
complete -c cudnnvm -n '__cudnnvm_is install' -l no-wait -d 'exit 75 instead of waiting for a busy lock'
complete -c cudnnvm -n '__cudnnvm_is install; and not __cudnnvm_after_dashdash' -a '(command cudnnvm commands --remote-versions 2>/dev/null)'
complete -c cudnnvm -n '__cudnnvm_is uninstall rm' -l force -d 'also remove the active (global) version'
complete -c cudnnvm -n '__cudnnvm_is uninstall rm' -l even-if-in-use -d 'remove it even while running programs have its libraries loaded (their next cuDNN load fails)'
complete -c cudnnvm -n '__cudnnvm_is uninstall rm; and not __cudnnvm_after_dashdash' -a '(__cudnnvm_versions)'
complete -c cudnnvm -n '__cudnnvm_is list ls' -l json -d 'machine-readable output'
complete -c cudnnvm -n '__cudnnvm_is list-remote ls-remote' -l cuda -x -d 'only builds for this CUDA major'
complete -c cudnnvm -n '__cudnnvm_is list-remote ls-remote' -l platform -x -d 'only builds for this platform'
complete -c cudnnvm -n '__cudnnvm_is list-remote ls-remote' -l source -x -a 'nvidia pypi' -d 'nvidia (the redist mirror) or pypi (wheels)'
complete -c cudnnvm -n '__cudnnvm_is list-remote ls-remote' -l index -x -d 'the PyPI simple index instead of [remote] index; implies --source pypi'
complete -c cudnnvm -n '__cudnnvm_is list-remote ls-remote' -l json -d 'machine-readable output'
complete -c cudnnvm -n '__cudnnvm_is list-remote ls-remote' -l refresh -d 're-read the mirror\'s index now'
complete -c cudnnvm -n '__cudnnvm_is list-remote ls-remote' -l deps -d 'also what installing the first build adds beside it (cuBLAS, nvrtc): component, version, channel, size'
complete -c cudnnvm -n '__cudnnvm_is list-remote ls-remote' -l mirror -x -d 'NVIDIA\'s redist mirror (https:// or file://) instead of [remote] mirror and CUDNNVM_MIRROR'
complete -c cudnnvm -n '__cudnnvm_is list-remote ls-remote; and not __cudnnvm_after_dashdash' -a '(command cudnnvm commands --remote-versions 2>/dev/null)'
complete -c cudnnvm -n '__cudnnvm_is use' -l cuda -x -d 'the build for CUDA major N (as <spec>-cudaN)'
complete -c cudnnvm -n '__cudnnvm_is use' -l unset -d 'remove this folder\'s pin'
complete -c cudnnvm -n '__cudnnvm_is use' -l force -d 'pin even when validation or a framework says no'
complete -c cudnnvm -n '__cudnnvm_is use' -l no-validate -d 'do not validate before pinning'
complete -c cudnnvm -n '__cudnnvm_is use' -l no-install -d 'fail instead of installing a missing version'
complete -c cudnnvm -n '__cudnnvm_is use; and not __cudnnvm_after_dashdash' -a '(__cudnnvm_versions)'
complete -c cudnnvm -n '__cudnnvm_is global' -l cuda -x -d 'the build for CUDA major N (as <spec>-cudaN)'
complete -c cudnnvm -n '__cudnnvm_is global' -l unset -d 'remove the global version'
complete -c cudnnvm -n '__cudnnvm_is global' -l system -d 'root: also point the machine\'s loader at it (/etc/ld.so.conf.d/cudnnvm.conf + ldconfig)'
complete -c cudnnvm -n '__cudnnvm_is global' -l force -d 'set it even when validation or a framework says no'
complete -c cudnnvm -n '__cudnnvm_is global' -l no-validate -d 'do not validate first'
complete -c cudnnvm -n '__cudnnvm_is global; and not __cudnnvm_after_dashdash' -a '(__cudnnvm_versions)'
complete -c cudnnvm -n '__cudnnvm_is shell' -l cuda -x -d 'the build for CUDA major N (as <spec>-cudaN)'
complete -c cudnnvm -n '__cudnnvm_is shell' -l unset -d 'remove this shell\'s version'
complete -c cudnnvm -n '__cudnnvm_is shell' -l force -d 'use it even when validation or a framework says no'
complete -c cudnnvm -n '__cudnnvm_is shell' -l no-validate -d 'do not validate first'
complete -c cudnnvm -n '__cudnnvm_is shell; and not __cudnnvm_after_dashdash' -a '(__cudnnvm_versions)'
complete -c cudnnvm -n '__cudnnvm_is current' -l json -d 'machine-readable output'
complete -c cudnnvm -n '__cudnnvm_is which; and not __cudnnvm_after_dashdash' -a 'lib include root'
complete -c cudnnvm -n '__cudnnvm_is env' -l shell -x -a 'sh bash zsh fish tcsh powershell cmd' -d 'the shell\'s syntax (default: the shell running cudnnvm)'
complete -c cudnnvm -n '__cudnnvm_is env' -l format -x -a 'pyxis apptainer k8s' -d 'instead of a script: srun\'s Pyxis flags, apptainer exec\'s flags, or a Kubernetes Pod\'s image volume and mount'
complete -c cudnnvm -n '__cudnnvm_is env' -l image -x -d 'with --format k8s: the image \'export oci\' wrote, as the cluster pulls it (default cudnn:<id>)'
complete -c cudnnvm -n '__cudnnvm_is env; and not __cudnnvm_after_dashdash' -a '(__cudnnvm_versions)'
complete -c cudnnvm -n '__cudnnvm_is export' -l tag -x -d 'the image\'s name in the layout\'s index.json (default: the install id)'
complete -c cudnnvm -n '__cudnnvm_is export; and not __cudnnvm_after_dashdash' -a '(__fish_complete_directories)'
complete -c cudnnvm -n '__cudnnvm_is cdi' -l output -r -F -d 'write the spec to FILE atomically (e.g. /etc/cdi/cudnnvm.json) instead of stdout'
complete -c cudnnvm -n '__cudnnvm_is cdi' -l prefix -x -d 'name each device P<id> (default: the id alone)'
complete -c cudnnvm -n '__cudnnvm_is cdi; and not __cudnnvm_after_dashdash' -a '(__cudnnvm_versions)'
complete -c cudnnvm -n '__cudnnvm_is exec' -l force -d 'run even when a framework cannot load the version'
complete -c cudnnvm -n '__cudnnvm_is exec; and not __cudnnvm_after_dashdash' -a '(__cudnnvm_versions)'
complete -c cudnnvm -n '__cudnnvm_is validate' -l no-gpu -d 'skip the driver and GPU steps (4-5)'
complete -c cudnnvm -n '__cudnnvm_is validate' -l json -d 'machine-readable output'
complete -c cudnnvm -n '__cudnnvm_is validate' -l frameworks -d 'also run torch/TensorFlow/JAX\'s own convolution under the version and check what they bound to'
complete -c cudnnvm -n '__cudnnvm_is validate; and not __cudnnvm_after_dashdash' -a '(__cudnnvm_versions)'
complete -c cudnnvm -n '__cudnnvm_is frameworks' -l path -x -a '(__fish_complete_directories)' -d 'the environment to read (default: $VIRTUAL_ENV, $CONDA_PREFIX, else the python3 on PATH)'
complete -c cudnnvm -n '__cudnnvm_is frameworks' -l json -d 'machine-readable output'
complete -c cudnnvm -n '__cudnnvm_is frameworks; and not __cudnnvm_after_dashdash' -a '(__cudnnvm_versions)'
complete -c cudnnvm -n '__cudnnvm_is bench' -l shapes -r -F -a 'resnet50 resnet50-b1' -d 'resnet50 (batch 64, default), resnet50-b1, or a file: name N C H W K R S stride pad dilation groups [dtype [layout]] per line'
complete -c cudnnvm -n '__cudnnvm_is bench' -l dtype -x -a 'fp32 fp16 bf16' -d 'fp32, fp16 (default) or bf16; a comma list for more'
complete -c cudnnvm -n '__cudnnvm_is bench' -l layout -x -a 'nchw nhwc' -d 'nchw, nhwc; both by default'
complete -c cudnnvm -n '__cudnnvm_is bench' -l runs -x -d 'timed runs per layer (default 30)'
complete -c cudnnvm -n '__cudnnvm_is bench' -l warmup -x -d 'untimed runs first (default 5)'
complete -c cudnnvm -n '__cudnnvm_is bench' -l json -d 'every figure, the GPU and the versions as JSON'
complete -c cudnnvm -n '__cudnnvm_is bench; and not __cudnnvm_after_dashdash' -a '(__cudnnvm_versions)'
complete -c cudnnvm -n '__cudnnvm_is doctor' -l json -d 'machine-readable output'
complete -c cudnnvm -n '__cudnnvm_is doctor' -l explain -x -d 'the cause and fix of a cuDNN error message'
complete -c cudnnvm -n '__cudnnvm_is init; and not __cudnnvm_after_dashdash' -a 'bash zsh fish tcsh powershell'
complete -c cudnnvm -n '__cudnnvm_is shim; and not __cudnnvm_after_dashdash' -a 'add remove list'
complete -c cudnnvm -n '__cudnnvm_is cache; and not __cudnnvm_after_dashdash' -a 'dir prune clean'
complete -c cudnnvm -n '__cudnnvm_is config; and not __cudnnvm_after_dashdash' -a 'list get set unset'
complete -c cudnnvm -n '__cudnnvm_is implode' -l dry-run -d 'say what would be removed, remove nothing'
complete -c cudnnvm -n '__cudnnvm_is implode' -l yes -d 'do not ask (needed when not on a terminal)'
complete -c cudnnvm -n '__cudnnvm_is venv' -l path -x -a '(__fish_complete_directories)' -d 'the virtualenv or conda env (default: the active one)'
complete -c cudnnvm -n '__cudnnvm_is venv' -l remove -d 'take the hooks out again'
complete -c cudnnvm -n '__cudnnvm_is venv' -l force -d 'pin even when a framework cannot load the version'
complete -c cudnnvm -n '__cudnnvm_is venv; and not __cudnnvm_after_dashdash' -a '(__cudnnvm_versions)'
complete -c cudnnvm -n '__cudnnvm_is import' -l version -x -d 'version when the files do not say (adds the build)'
complete -c cudnnvm -n '__cudnnvm_is import' -l cuda -x -d 'CUDA major it was built for, when not detectable'
complete -c cudnnvm -n '__cudnnvm_is import' -l no-validate -d 'do not validate after importing'
complete -c cudnnvm -n '__cudnnvm_is import; and not __cudnnvm_after_dashdash' -a '(__fish_complete_directories)'
complete -c cudnnvm -n '__cudnnvm_is mirror' -l cuda -x -d 'only builds for this CUDA major (default: all)'
complete -c cudnnvm -n '__cudnnvm_is mirror' -l platform -x -d 'builds for this platform (default: this machine\'s)'
complete -c cudnnvm -n '__cudnnvm_is mirror' -l verify -d 're-hash every archive in the folder'
complete -c cudnnvm -n '__cudnnvm_is mirror' -l refresh -d 're-read the mirror\'s index now'
complete -c cudnnvm -n '__cudnnvm_is mirror' -l from-lock -r -F -d 'copy exactly the manifest and archives a cudnnvm.lock names'
complete -c cudnnvm -n '__cudnnvm_is mirror' -l mirror -x -d 'NVIDIA\'s redist mirror (https:// or file://) instead of [remote] mirror and CUDNNVM_MIRROR'
complete -c cudnnvm -n '__cudnnvm_is mirror; and not __cudnnvm_after_dashdash' -a '(__fish_complete_directories)'
complete -c cudnnvm -n '__cudnnvm_is lock' -l platform -x -d 'also lock this platform\'s archive (repeatable; linux-x86_64, linux-sbsa, linux-aarch64, windows-x86_64)'
complete -c cudnnvm -n '__cudnnvm_is lock' -l upgrade -d 're-resolve the pin to the newest build the mirror lists'
complete -c cudnnvm -n '__cudnnvm_is lock' -l check -d 'exit 1 unless the lock locks the pin for these platforms (reads files only)'
complete -c cudnnvm -n '__cudnnvm_is lock' -l mirror -x -d 'NVIDIA\'s redist mirror (https:// or file://) instead of [remote] mirror and CUDNNVM_MIRROR'
complete -c cudnnvm -n '__cudnnvm_is modulefiles' -l format -x -a 'lua tcl' -d 'lua (Lmod) or tcl (both; the default)'
complete -c cudnnvm -n '__cudnnvm_is modulefiles' -l out -x -a '(__fish_complete_directories)' -d 'module folder (default <store>/modulefiles)'
complete -c cudnnvm -n '__cudnnvm_is completions; and not __cudnnvm_after_dashdash' -a 'bash zsh fish'
complete -c cudnnvm -n '__cudnnvm_is help; and not __cudnnvm_after_dashdash' -a '(command cudnnvm commands 2>/dev/null)'
