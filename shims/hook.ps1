# cudnnvm shell integration for PowerShell; in $PROFILE: cudnnvm init powershell | Out-String | Invoke-Expression
$env:CUDNNVM_HOOK = "$PID"
function global:__cudnnvm_hook {
    $cv_s = $global:LASTEXITCODE
    $out = & @EXE@ hook-env --shell powershell
    if ($out) { Invoke-Expression ($out -join "`n") }
    $global:LASTEXITCODE = $cv_s
}
if (-not $global:__cudnnvm_prompt) { $global:__cudnnvm_prompt = $function:prompt }
function global:prompt { __cudnnvm_hook; & $global:__cudnnvm_prompt }
function global:cudnnvm {
    if ($args.Count -gt 0 -and $args[0] -eq 'shell') {
        $rest = @($args | Select-Object -Skip 1)
        $out = & @EXE@ shell --eval powershell @rest
        if ($LASTEXITCODE -eq 0) { Invoke-Expression ($out -join "`n"); __cudnnvm_hook }
    } else { & @EXE@ @args }
}
__cudnnvm_hook
