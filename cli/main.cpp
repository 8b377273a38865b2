// Entry point of workbench-cli (the commands live in their own files; see cli_commands.h).
int main() { return 0; }
