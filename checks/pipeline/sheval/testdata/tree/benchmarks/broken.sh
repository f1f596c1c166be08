#!/usr/bin/env bash
if [ -n "$X" ]; then
    echo "never closed"
