-- bench/accuracy.lua - the fixed Lua workload of bench/accuracy: string and
-- table heavy, deterministic (its own generator, no clock), prints a checksum.
-- ROUNDS (first argument, default 1) scales it.
local rounds = tonumber(arg and arg[1]) or 1
local seed = 12345
local function rand(n)
	seed = (seed * 1103515245 + 12345) % 2147483648
	return seed % n
end

local syllables = { "ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "qua", "str", "ph" }
local function word()
	local parts = {}
	for i = 1, 2 + rand(4) do parts[i] = syllables[rand(#syllables) + 1] end
	return table.concat(parts)
end

local sum = 0
for _ = 1, rounds do
	-- a word-frequency table from generated text
	local lines = {}
	for i = 1, 3000 do
		local w = {}
		for j = 1, 8 do w[j] = word() end
		lines[i] = table.concat(w, " ")
	end
	local freq = {}
	for _, line in ipairs(lines) do
		for w in line:gmatch("%a+") do freq[w] = (freq[w] or 0) + 1 end
	end
	-- sort the distinct words by count, then name
	local words = {}
	for w in pairs(freq) do words[#words + 1] = w end
	table.sort(words, function(a, b)
		if freq[a] ~= freq[b] then return freq[a] > freq[b] end
		return a < b
	end)
	-- rewrite the text: substitutions, formatting, upper case, reversal
	local out = {}
	for i, line in ipairs(lines) do
		local s = line:gsub("(%a+)", function(w) return freq[w] > 3 and w:upper() or w end)
		s = s:gsub("qua", "QU"):gsub("%s+", "_")
		out[#out + 1] = string.format("%05d:%s:%d", i, s:reverse(), #s)
	end
	-- records with string keys, grouped and sorted
	local groups = {}
	for i = 1, 20000 do
		local key = words[rand(#words) + 1]:sub(1, 3)
		local g = groups[key]
		if not g then g = {}; groups[key] = g end
		g[#g + 1] = { name = key .. i, value = rand(1000), tag = tostring(i % 7) }
	end
	for key, g in pairs(groups) do
		table.sort(g, function(a, b) return a.value < b.value or (a.value == b.value and a.name < b.name) end)
		sum = sum + #g + g[1].value + #key
	end
	local text = table.concat(out, "\n")
	local _, n = text:gsub("[AEIOU]", "")
	sum = (sum + n + #text + #words) % 1000000007
end
print(sum)
