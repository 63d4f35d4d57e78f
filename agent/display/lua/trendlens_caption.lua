-- TrendLens captions on Brilliant Labs Halo and Frame: each caption arrives as one sprite message
-- (brilliant_msg's TxSprite: width, height, bits per pixel, palette, pixels) drawn over the whole
-- view; a clear message blanks it. Uploaded and started by agent/display/halo.py.
local data = require('data.min')
local sprite = require('sprite.min')

local CAPTION = 0x20
local CLEAR = 0x10

local function draw(block)
    local spr = sprite.parse_sprite(block)
    frame.display.clear()
    sprite.set_palette(spr.num_colors, spr.palette_data)
    frame.display.bitmap(1, 1, spr.width, 1 << spr.bpp, 0, spr.pixel_data)
    frame.display.show()
end

frame.display.clear()
frame.display.show()
print('trendlens caption app ready')

while true do
    local rc, err = pcall(function()
        for _, item in ipairs(data.process_raw_items()) do
            local flag, block = item[1], item[2]
            if flag == CAPTION then
                draw(block)
            elseif flag == CLEAR then
                frame.display.clear()
                frame.display.show()
            end
        end
        frame.sleep(0.005)
    end)
    if rc == false then
        print(err)
        break
    end
end
