alias precmd 'eval `@EXE@ hook-env --shell tcsh`';
alias cwdcmd 'eval `@EXE@ hook-env --shell tcsh`';
eval `@EXE@ hook-env --shell tcsh`;
