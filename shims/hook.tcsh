setenv CUDNNVM_HOOK $$;
alias _cudnnvm_hook 'eval `@EXE@ hook-env --shell tcsh`';
if ( ! $?_cudnnvm_hooked ) alias precmd "_cudnnvm_hook;`alias precmd`";
if ( ! $?_cudnnvm_hooked ) alias cwdcmd "_cudnnvm_hook;`alias cwdcmd`";
set _cudnnvm_hooked;
eval `@EXE@ hook-env --shell tcsh`;
