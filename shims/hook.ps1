# cudnnvm shell integration for PowerShell; in $PROFILE: cudnnvm init powershell | Out-String | Invoke-Expression
function global:__cudnnvm_hook {
    $exe = Get-Command -CommandType Application cudnnvm | Select-Object -First 1
    $out = & $exe hook-env --shell powershell
    if ($out) { Invoke-Expression ($out -join "`n") }
}
if (-not $global:__cudnnvm_prompt) { $global:__cudnnvm_prompt = $function:prompt }
function global:prompt { __cudnnvm_hook; & $global:__cudnnvm_prompt }
function global:cudnnvm {
    $exe = Get-Command -CommandType Application cudnnvm | Select-Object -First 1
    if ($args.Count -gt 0 -and $args[0] -eq 'shell') {
        $rest = @($args | Select-Object -Skip 1)
        $out = & $exe shell --eval powershell @rest
        if ($LASTEXITCODE -eq 0) { Invoke-Expression ($out -join "`n"); __cudnnvm_hook }
    } else { & $exe @args }
}
__cudnnvm_hook
