-- Neovim's built-in LSP client against syncwatch-lsp, headless, with docs/editor.md's own
-- snippet (loaded before the file is opened, as init.lua is): the snippet's autocmd has
-- started the server and attached it to the buffer. Wait for syncwatch's diagnostics on the
-- open buffer, apply the preferred code action (the fix-it) as Neovim applies it, check the
-- text. Run by tests/lsp/nvim_lsp_test.py:
--   NVIM_RESULTS=... nvim --headless --clean -c 'luafile SNIPPET' -c 'edit FILE' -c 'luafile nvim_lsp.lua'
local results = io.open(os.getenv('NVIM_RESULTS'), 'w')
local failed = false
local function check(name, ok, detail)
  results:write((ok and 'ok   ' or 'FAIL ') .. name .. ((ok or not detail) and '' or (': ' .. tostring(detail))) .. '\n')
  results:flush()
  failed = failed or not ok
end
local function finish()
  results:close()
  vim.cmd(failed and 'cquit' or 'qall!')
end

local buf = vim.api.nvim_get_current_buf()
check('the buffer is a cuda one', vim.bo[buf].filetype == 'cuda', vim.bo[buf].filetype)
local function attached()
  for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
    if c.name == 'syncwatch' then return c end
  end
end
vim.wait(30000, function() return attached() ~= nil end, 50)
local started = attached()
check("docs/editor.md's snippet started syncwatch-lsp and attached it to the buffer", started ~= nil)
if not started then return finish() end
local id = started.id

-- syncwatch's diagnostics on this buffer (the first parse of cuda_runtime.h takes seconds)
local function memcpy_diagnostic()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.lnum == 30 and d.source == 'syncwatch' then return d end
  end
end
local got = vim.wait(300000, function() return memcpy_diagnostic() ~= nil end, 100)
local d = memcpy_diagnostic()
check('diagnostics: the cudaMemcpy at line 31', got and d ~= nil)
if not d then return finish() end
local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
check('the diagnostic carries the rule id', code == 'syncwatch-sync-memcpy', code)

-- the code action, as :lua vim.lsp.buf.code_action() would get it
local client = vim.lsp.get_client_by_id(id)
local params = {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  range = { start = { line = 30, character = 2 }, ['end'] = { line = 30, character = 2 } },
  context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(buf, 30) },
}
local replies = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 60000) or {}
local fix
for _, reply in pairs(replies) do
  for _, action in ipairs(reply.result or {}) do
    if action.isPreferred then fix = action end
  end
end
check('a preferred quickfix', fix ~= nil and fix.kind == 'quickfix')
if not fix then return finish() end
vim.lsp.util.apply_workspace_edit(fix.edit, client.offset_encoding or 'utf-16')
local line = vim.api.nvim_buf_get_lines(buf, 30, 31, false)[1]
check('the fix-it applied: cudaMemcpyAsync on stream',
  line:find('cudaMemcpyAsync(d_prev_saved, d_prev, pixels * sizeof(float), cudaMemcpyDeviceToDevice, stream)', 1, true) ~= nil,
  line)

-- the edit reaches the server (didChange): the finding goes away
local gone = vim.wait(300000, function() return memcpy_diagnostic() == nil and #vim.diagnostic.get(buf) > 0 end, 100)
check('after the edit: the finding is gone, the memset note stays', gone, vim.inspect(vim.diagnostic.get(buf)))
vim.lsp.stop_client(id)
finish()
