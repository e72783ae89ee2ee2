"""Files a user hands over and files a command writes: bounded UTF-8 reading, and one helper
for every output path (refused devices, links written through, whole or not at all)."""
