-- Send-message: every request a unique body to a new end user.
local common = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
setup, done, request = common.setup, common.done, common.send
