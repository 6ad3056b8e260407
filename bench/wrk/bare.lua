-- Calibration: a send-sized JSON body to the bare node:http handler (bench/bare-server.ts).
local common = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
setup, done = common.setup, common.done
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.body = '{"number":"+12125550100","content":"bench calibration message"}'
