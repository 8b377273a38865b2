// Compiled by the engine_door_* tests as a front end is (the CLI linking workbench_engine, the window
// workbench_gui_lib): the public header is found, the engine's private one must not be, so the compile fails.
#include "train/rank_trainer.h"
#include "workbench/experiment.h"
